package dev.idem;

/**
 * Whether an idempotent method runs inside one database transaction with its own claim and completion
 * ({@link Idempotent#storeTransaction()}): the transactional mode of SEMANTICS.md section 9.
 *
 * <p>In that mode the claim of the key, the method's writes and the completion commit together or roll back
 * together, so no crash can leave a write without its completed record or a completed record without its write.
 * It needs a store that keeps its records in the database the method writes to and can run a claim inside a
 * transaction (the jdbc store on PostgreSQL); any other store is refused when the method is planned, before it
 * runs. The names follow the propagation modes of JTA and Spring, which they mean here as well.
 */
public enum StoreTransaction {
    /** The default: the claim and the completion are the store's own statements; the method's writes are its own. */
    NONE,
    /**
     * Join the transaction the application has bound to this thread on the store's database, or else begin one,
     * hand it to the method and commit it when the method returns (roll it back when it throws).
     */
    REQUIRED,
    /**
     * Join the transaction the application has bound to this thread on the store's database; without one the call
     * is refused, the method not run. For methods whose writes must commit with the application's other work.
     */
    MANDATORY
}
