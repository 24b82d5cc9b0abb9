package dev.idem.store.jdbc;

/**
 * {@link PostgresqlTckTest} with every claim starting with the plain insert, the statement a store chooses while nearly
 * all of its claims meet new keys ({@link ClaimPaths}): that path must keep the whole contract on its own, its
 * second statement (the read that follows a conflict) included. {@link PostgresqlTckTest} runs the TCK on a new
 * store, which reads first.
 */
class PostgresqlInsertFirstTckTest extends PostgresqlTckTest {
    @Override
    protected JdbcIdempotencyStore.Builder configured(JdbcIdempotencyStore.Builder builder) {
        return builder.claimStart(ClaimPaths.Start.INSERT_FIRST);
    }

    /**
     * Inserting first, a replay draws a token it does not use (the price of the path, with its second round trip,
     * which is why a store inserts first only while its keys are new); it still answers the record and writes no row.
     * The gap also shows that these claims did start with the insert.
     */
    @Override
    protected int tokensAReplayDraws() {
        return 1;
    }
}
