package dev.idem.store.jdbc;

/**
 * {@link PostgresqlReadFirstClaimTest}'s guarantees with every claim starting with the plain insert
 * ({@link ClaimPaths}): a claim that meets a record it cannot take still neither locks nor writes the row and answers
 * while another transaction holds it (the insert's conflict is found without a lock, and the read that follows is a
 * plain read), and a first claim that meets a concurrent, uncommitted first claim waits for it and then finds its
 * record, or takes the key when it rolled back.
 */
class PostgresqlInsertFirstClaimTest extends PostgresqlReadFirstClaimTest {
    @Override
    ClaimPaths.Start claimStart() {
        return ClaimPaths.Start.INSERT_FIRST;
    }
}
