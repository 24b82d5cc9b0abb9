package dev.idem.spring;

import dev.idem.Idempotent;
import dev.idem.StoreTransaction;
import dev.idem.testsupport.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code storeTransaction = REQUIRED} over the jdbc store on the application's {@code DataSource} (the real
 * PostgreSQL): the method's own {@code JdbcTemplate} write and Idem's claim and completion share Spring's
 * transaction, the one a {@code @Transactional} caller has open or else one Idem begins with the application's
 * transaction manager, so they commit together, and a rollback (the method throws, its commit fails, the caller's
 * transaction rolls back) leaves neither the row nor the record, and a retry runs the method again; a concurrent
 * caller of the key waits on the open transaction and replays what it committed.
 */
class SpringTransactionsTest {
    private static final String RECORDS = "spring_tx_records";
    private static ConfigurableApplicationContext context;
    private static Ledger ledger;
    private static Checkout checkout;
    private static JdbcTemplate jdbc;

    /** Posts an entry with Spring's JdbcTemplate inside the idempotent call; fails when the test asks it to. */
    static class Ledger {
        private final JdbcTemplate jdbc;
        private final AtomicInteger runs = new AtomicInteger();
        private final AtomicBoolean failAfterTheWrite = new AtomicBoolean();
        private final AtomicBoolean failTheCommit = new AtomicBoolean();
        private volatile CountDownLatch holdAfterTheWrite = new CountDownLatch(0);

        Ledger(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Idempotent(scope = "spring-tx:post", storeTransaction = StoreTransaction.REQUIRED)
        public String post(String entry) {
            runs.incrementAndGet();
            jdbc.update("insert into spring_tx_ledger(entry) values (?)", entry);
            if (failTheCommit.getAndSet(false)) {
                TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                    @Override
                    public void beforeCommit(boolean readOnly) {
                        throw new IllegalStateException("the commit failed");
                    }
                });
            }
            try {
                if (!holdAfterTheWrite.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test did not let the method go on within 30 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            if (failAfterTheWrite.getAndSet(false)) {
                throw new IllegalStateException("the method failed after its write");
            }
            return "posted " + entry;
        }

        public int runs() {
            return runs.get();
        }

        public void resetRuns() {
            runs.set(0);
        }

        public void failAfterTheWrite() {
            failAfterTheWrite.set(true);
        }

        public void holdAfterTheWrite(CountDownLatch latch) {
            holdAfterTheWrite = latch;
        }

        public void failTheCommit() {
            failTheCommit.set(true);
        }
    }

    /** A {@code @Transactional} caller around the idempotent call. */
    static class Checkout {
        private final Ledger ledger;

        Checkout(Ledger ledger) {
            this.ledger = ledger;
        }

        @Transactional
        public String pay(String entry, boolean failAfterThePost) {
            String posted = ledger.post(entry);
            if (failAfterThePost) {
                throw new IllegalStateException("the checkout failed after the post");
            }
            return posted;
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class LedgerApp {
        @Bean
        Ledger ledger(JdbcTemplate jdbc) {
            jdbc.execute("create table if not exists spring_tx_ledger(entry varchar(64))");
            return new Ledger(jdbc);
        }

        @Bean
        Checkout checkout(Ledger ledger) {
            return new Checkout(ledger);
        }
    }

    @BeforeAll
    static void start() {
        context = Applications.start(LedgerApp.class, "spring.datasource.url=" + TestPostgres.url(),
                "idem.store=jdbc", "idem.jdbc.table=" + RECORDS, "idem.jdbc.createTable=true");
        ledger = context.getBean(Ledger.class);
        checkout = context.getBean(Checkout.class);
        jdbc = context.getBean(JdbcTemplate.class);
    }

    @AfterAll
    static void stop() {
        context.close();
    }

    /** Each test calls keys of its own: the engine keeps the results it committed, as it should. */
    @BeforeEach
    void emptyTables() {
        jdbc.execute("delete from spring_tx_ledger");
        jdbc.execute("delete from " + RECORDS);
        ledger.resetRuns();
    }

    @Test
    void theMethodsWriteAndTheRecordCommitTogetherInATransactionIdemBegins() {
        assertEquals("posted rent", ledger.post("rent"));
        assertEquals(1, entries(), "the method's row committed");
        assertEquals(1, records(), "and the record with it");

        assertEquals("posted rent", ledger.post("rent"));
        assertEquals(1, ledger.runs(), "a duplicate is replayed");
        assertEquals(1, entries());
    }

    @Test
    void aMethodThatThrowsLeavesNeitherItsRowNorARecordAndTheRetryRunsAgain() {
        ledger.failAfterTheWrite();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> ledger.post("fee"));
        assertEquals("the method failed after its write", e.getMessage());
        assertEquals(0, entries(), "the method's row rolled back");
        assertEquals(0, records(), "and the claim with it");

        assertEquals("posted fee", ledger.post("fee"));
        assertEquals(2, ledger.runs(), "the retry ran the method again");
        assertEquals(1, entries());
        assertEquals(1, records());
    }

    @Test
    void aCommitThatFailsLeavesNeitherItsRowNorARecordAndTheRetryRunsAgain() {
        ledger.failTheCommit();
        RuntimeException e = assertThrows(RuntimeException.class, () -> ledger.post("tax"));
        assertTrue(causes(e, "the commit failed"), "the caller learns that the commit failed: " + e);
        assertEquals(0, entries(), "the failed commit rolled the row back");
        assertEquals(0, records(), "and the record with it");

        assertEquals("posted tax", ledger.post("tax"));
        assertEquals(2, ledger.runs(), "the retry ran the method again");
        assertEquals(1, entries());
        assertEquals(1, records());
    }

    @Test
    void aTransactionalCallersCommitTakesTheMethodsWriteAndTheRecord() {
        assertEquals("posted card", checkout.pay("card", false));
        assertEquals(1, entries());
        assertEquals(1, records());
        assertEquals("posted card", ledger.post("card"));
        assertEquals(1, ledger.runs(), "the committed call is replayed");
    }

    @Test
    void aTransactionalCallersRollbackTakesTheMethodsWriteAndTheRecordAndTheRetryRunsAgain() {
        assertThrows(IllegalStateException.class, () -> checkout.pay("cash", true));
        assertEquals(1, ledger.runs());
        assertEquals(0, entries(), "the caller's rollback took the method's row");
        assertEquals(0, records(), "and the record, which was in the caller's transaction");

        assertEquals("posted cash", checkout.pay("cash", false));
        assertEquals(2, ledger.runs(), "the retry ran the method again");
        assertEquals(1, entries());
        assertEquals(1, records());
    }

    @Test
    @Timeout(60)
    void aConcurrentCallOfTheKeyWaitsOnTheOpenTransactionAndReplaysWhatItCommitted() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        ledger.holdAfterTheWrite(release);
        ExecutorService callers = Executors.newFixedThreadPool(2);
        try {
            Future<String> first = callers.submit(() -> ledger.post("lease"));
            awaitCondition("the first call holds the key inside its transaction", () -> ledger.runs() == 1);
            Future<String> second = callers.submit(() -> ledger.post("lease"));
            awaitCondition("the second call waits on the first transaction's lock", () -> lockWaiters() == 1);
            assertFalse(second.isDone(), "the second call waits while the first transaction is open");
            release.countDown();
            assertEquals("posted lease", first.get(30, TimeUnit.SECONDS));
            assertEquals("posted lease", second.get(30, TimeUnit.SECONDS), "the second call got the committed result");
            assertEquals(1, ledger.runs(), "the method ran once");
            assertEquals(1, entries());
        } finally {
            release.countDown();
            ledger.holdAfterTheWrite(new CountDownLatch(0));
            callers.shutdownNow();
        }
    }

    /** How many sessions of the test database wait for a lock (the second caller's claim, on the key's row). */
    private static int lockWaiters() {
        return jdbc.queryForObject("select count(*) from pg_stat_activity where datname = current_database()"
                + " and wait_event_type = 'Lock'", Integer.class);
    }

    private static void awaitCondition(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 20 s: " + what);
            }
            Thread.sleep(10);
        }
    }

    private static int entries() {
        return jdbc.queryForObject("select count(*) from spring_tx_ledger", Integer.class);
    }

    private static int records() {
        return jdbc.queryForObject("select count(*) from " + RECORDS, Integer.class);
    }

    private static boolean causes(Throwable thrown, String message) {
        for (Throwable t = thrown; t != null; t = t.getCause()) {
            if (message.equals(t.getMessage())) {
                return true;
            }
        }
        return false;
    }
}
