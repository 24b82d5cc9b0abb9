package dev.idem.store.jdbc;

import dev.idem.IdempotencyContext;
import dev.idem.StoreTransaction;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyPolicy;
import dev.idem.core.IdempotentOperation;

import java.io.PrintStream;
import java.sql.PreparedStatement;
import java.util.concurrent.CountDownLatch;

/**
 * A worker JVM for {@link TransactionalCrashTest}: one transactional call that writes its side effect, says so on
 * stdout ({@code WROTE <key>}) and then never returns, so the test can kill it between the write and the commit.
 *
 * <p>Arguments: the JDBC URL, the records table, the side-effect table, the order id.
 */
public final class TransactionalCrashWorker {

    /** The policy of the call, shared with the test so that both derive the same key. */
    static IdempotencyPolicy policy() {
        return IdempotencyPolicy.custom().operation("Orders#place").scope("tx-crash:orders")
                .storeTransaction(StoreTransaction.REQUIRED).waitTimeout("30s").build();
    }

    /** The call's side effect: a row in {@code side}, through the transaction that holds the claim. */
    static void insert(String side, String order) throws Exception {
        try (PreparedStatement ps = JdbcTransactions.connection().prepareStatement("INSERT INTO " + side
                + " (order_id) VALUES (?)")) {
            ps.setString(1, order);
            ps.executeUpdate();
        }
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String table = args[1];
        String side = args[2];
        String order = args[3];
        PrintStream out = System.out;
        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(url).table(table).build();
             IdemEngine engine = IdemEngine.create(IdemSettings.custom().namespace("tx-crash").store("pg", store)
                     .defaultStore("pg").build())) {
            IdempotentOperation<String> place = engine.operation(policy(), String.class);
            place.call(() -> {
                insert(side, order);
                out.println("WROTE " + IdempotencyContext.current().orElseThrow().key());
                out.flush();
                new CountDownLatch(1).await(); // until killed: the transaction stays open, uncommitted
                return "unreachable";
            }, order);
        }
    }
}
