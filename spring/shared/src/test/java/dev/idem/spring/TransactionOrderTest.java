package dev.idem.spring;

import dev.idem.Idempotent;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Where Idem's advice stands against {@code @Transactional}: by default outside the transaction, so a transaction
 * that fails to commit is a failed call and a retry runs it again; placed inside it (by
 * {@code idem.spring.aspect-order}), the result is stored before the commit, and a retry replays work that was
 * rolled back. The commit fails by a synchronization the method registers, as a deferred constraint or a lost
 * connection would make it fail.
 */
class TransactionOrderTest {

    /** Posts a ledger entry in a transaction; the first call's commit fails when the test asks it to. */
    static class Ledger {
        private final JdbcTemplate jdbc;
        private final AtomicBoolean failNextCommit = new AtomicBoolean();
        private final AtomicInteger runs = new AtomicInteger();

        Ledger(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @Transactional
        @Idempotent(scope = "ledger:post")
        public String post(String entry) {
            runs.incrementAndGet();
            jdbc.update("insert into ledger(entry) values (?)", entry);
            if (failNextCommit.getAndSet(false)) {
                TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                    @Override
                    public void beforeCommit(boolean readOnly) {
                        throw new IllegalStateException("the commit failed");
                    }
                });
            }
            return "posted " + entry;
        }

        public void failNextCommit() {
            failNextCommit.set(true);
        }

        public int runs() {
            return runs.get();
        }

        public int rows() {
            return jdbc.queryForObject("select count(*) from ledger", Integer.class);
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class LedgerApp {
        @Bean
        Ledger ledger(JdbcTemplate jdbc) {
            jdbc.execute("create table if not exists ledger(entry varchar(64))");
            jdbc.execute("delete from ledger");
            return new Ledger(jdbc);
        }
    }

    /** The same application with the transaction's advice outside Idem's, as the property allows. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EnableTransactionManagement(order = Integer.MAX_VALUE - 1)
    static class IdemInsideTheTransactionApp extends LedgerApp {
    }

    @Test
    void byDefaultACommitThatFailsIsAFailedCallAndTheRetryRunsAgain() {
        try (ConfigurableApplicationContext context = Applications.start(LedgerApp.class,
                "spring.datasource.url=jdbc:h2:mem:ledger-default;DB_CLOSE_DELAY=-1")) {
            Ledger ledger = context.getBean(Ledger.class);
            ledger.failNextCommit();
            assertThrows(IllegalStateException.class, () -> ledger.post("rent"));
            assertEquals(0, ledger.rows(), "the failed commit rolled the entry back");

            assertEquals("posted rent", ledger.post("rent"));
            assertEquals(2, ledger.runs(), "the retry ran the method again");
            assertEquals(1, ledger.rows(), "the entry is there once");
            assertEquals("posted rent", ledger.post("rent"));
            assertEquals(2, ledger.runs(), "a duplicate of the committed call is replayed");
        }
    }

    @Test
    void insideTheTransactionTheResultIsStoredBeforeTheCommitAndARolledBackCallIsReplayed() {
        try (ConfigurableApplicationContext context = Applications.start(IdemInsideTheTransactionApp.class,
                "spring.datasource.url=jdbc:h2:mem:ledger-inside;DB_CLOSE_DELAY=-1",
                "idem.spring.aspect-order=" + Integer.MAX_VALUE)) {
            Ledger ledger = context.getBean(Ledger.class);
            ledger.failNextCommit();
            assertThrows(IllegalStateException.class, () -> ledger.post("rent"));

            assertEquals("posted rent", ledger.post("rent"), "the retry is answered with the stored result");
            assertEquals(1, ledger.runs(), "the method did not run again");
            assertEquals(0, ledger.rows(), "so the entry the failed commit rolled back is missing");
        }
    }
}
