package dev.idem.store.jdbc;

import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

/**
 * How one database's claims are made: the statements a claim runs and how it reads their answers. A claim runs on
 * the connection it is given, in whatever transaction that connection is: the store's own statement in auto-commit
 * mode, or a transactional call's.
 */
sealed interface ClaimStrategy permits PostgresqlClaims, OptimisticClaims {

    /**
     * Claims the key outside the transactional mode: reading the key's row first (or, on PostgreSQL while keys are
     * new, inserting first: {@link ClaimPaths}) and locking it only when its record is claimable.
     */
    ClaimOutcome claim(Connection c, ClaimRequest request) throws SQLException;

    /**
     * Claims the key in the transactional mode, locking the key's row whatever its record, so a concurrent caller of
     * the key waits on the row until the transaction ends.
     *
     * @throws UnsupportedOperationException where the transactional mode is refused (every database but PostgreSQL)
     */
    ClaimOutcome claimLockingTheRow(Connection c, ClaimRequest request) throws SQLException;

    /** One attempt of a claim: its outcome, or empty when it lost to a concurrent write and must run again. */
    @FunctionalInterface
    interface Attempt {
        Optional<ClaimOutcome> run(int attempt) throws SQLException;
    }

    /**
     * Runs {@code attempt} until it decides the claim. A write that lost to a concurrent one changed nothing, so the
     * claim reads again; a claim that loses a thousand times in a row gives up rather than spin.
     */
    static ClaimOutcome untilDecided(Attempt attempt) throws SQLException {
        for (int i = 0; ; i++) {
            Optional<ClaimOutcome> outcome = attempt.run(i);
            if (outcome.isPresent()) {
                return outcome.get();
            }
            if (i > 1_000) {
                throw new SQLException("the claim lost 1,000 times in a row to concurrent writes");
            }
        }
    }
}
