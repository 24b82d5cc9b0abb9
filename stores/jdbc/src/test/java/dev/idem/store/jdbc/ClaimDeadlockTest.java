package dev.idem.store.jdbc;

import dev.idem.IdempotencyStoreException;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A claim whose write is chosen as a deadlock's victim (MariaDB's answer when a claim's insert meets the sweeper's
 * row locks; H2 reports deadlocks with the same SQLSTATE) reads again rather than failing: its statement was rolled
 * back whole. The deadlock is the driver's answer, played by a connection that refuses the claim's first insert.
 */
class ClaimDeadlockTest {
    private static final String URL = "jdbc:h2:file:" + Path.of(System.getProperty("idem.test.dir", "target"), "h2",
            "deadlock").toAbsolutePath() + ";LOCK_TIMEOUT=10000";

    private final String table = JdbcStoreTck.uniqueTable();
    private JdbcIdempotencyStore store;

    @AfterEach
    void close() throws Exception {
        if (store != null) {
            store.close();
        }
        JdbcStoreTck.dropTable(URL, table);
    }

    @Test
    void aClaimWhoseInsertLostADeadlockClaimsAgain() {
        store = JdbcIdempotencyStore.builder(refusingInserts("40001", 1213)).table(table).createTable(true).build();
        String key = "idem:deadlock:claim:" + UUID.randomUUID();

        long token = assertInstanceOf(ClaimOutcome.Acquired.class,
                store.claim(new ClaimRequest(key, "hash", "owner", Duration.ofSeconds(30), Duration.ZERO)))
                .fencingToken();

        assertEquals(token, store.get(key).orElseThrow().fencingToken());
    }

    @Test
    void anyOtherErrorOfTheInsertFailsTheClaim() {
        store = JdbcIdempotencyStore.builder(refusingInserts("08006", 0)).table(table).createTable(true).build();

        assertThrows(IdempotencyStoreException.class, () -> store.claim(new ClaimRequest(
                "idem:deadlock:other:" + UUID.randomUUID(), "hash", "owner", Duration.ofSeconds(30), Duration.ZERO)));
    }

    /** H2 connections whose first insert into the table fails with {@code sqlState} and {@code errorCode}. */
    private DataSource refusingInserts(String sqlState, int errorCode) {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL(URL);
        AtomicInteger left = new AtomicInteger(1);
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    Object result = invoke(h2, method, args);
                    if (!(result instanceof Connection real)) {
                        return result;
                    }
                    return Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                            (p, m, a) -> {
                                if (m.getName().equals("prepareStatement") && a != null && a[0] instanceof String sql
                                        && sql.startsWith("INSERT INTO " + table) && left.getAndDecrement() > 0) {
                                    throw new SQLException("refused by the test", sqlState, errorCode);
                                }
                                return invoke(real, m, a);
                            });
                });
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
