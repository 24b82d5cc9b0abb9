package dev.idem.spring;

import dev.idem.store.jdbc.ApplicationTransactions;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionStatus;
import org.springframework.transaction.support.DefaultTransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import javax.sql.DataSource;
import java.sql.Connection;
import java.util.Optional;

/**
 * Spring's transactions over the application's {@code DataSource}, for the jdbc store's transactional mode: the
 * transaction open on the thread is the one Spring's transaction manager bound there (a {@code @Transactional}
 * method around the call), whose connection {@code JdbcTemplate} and {@code DataSourceUtils} hand out too; a new
 * one is begun with the application's {@link PlatformTransactionManager}, so the method's writes through Spring join
 * it and commit or roll back with the claim and the completion.
 */
final class SpringManagedTransactions implements ApplicationTransactions {
    /**
     * A transaction of its own (a transaction of another resource on the thread is suspended, not joined), at READ
     * COMMITTED, as the store's transactional claims need.
     */
    private static final TransactionDefinition NEW_READ_COMMITTED = readCommittedRequiringNew();

    private final DataSource dataSource;
    private final PlatformTransactionManager manager;

    SpringManagedTransactions(DataSource dataSource, PlatformTransactionManager manager) {
        this.dataSource = dataSource;
        this.manager = manager;
    }

    @Override
    public Optional<Connection> current() {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            return Optional.empty();
        }
        Object resource = TransactionSynchronizationManager.getResource(dataSource);
        if (resource instanceof ConnectionHolder holder && holder.isSynchronizedWithTransaction()) {
            return Optional.of(holder.getConnection());
        }
        return Optional.empty(); // a transaction of another resource: nothing of the store's database to join
    }

    @Override
    public Transaction begin() {
        TransactionStatus status = manager.getTransaction(NEW_READ_COMMITTED);
        Optional<Connection> connection = current();
        if (connection.isEmpty()) {
            manager.rollback(status);
            throw new IllegalStateException("the application's PlatformTransactionManager ("
                    + manager.getClass().getName() + ") began a transaction that holds no connection of the"
                    + " DataSource the jdbc store uses, so the method's writes could not share it; give the"
                    + " application a transaction manager over that DataSource (DataSourceTransactionManager,"
                    + " JdbcTransactionManager or JpaTransactionManager)");
        }
        return new Begun(manager, status, connection.get());
    }

    private static TransactionDefinition readCommittedRequiringNew() {
        DefaultTransactionDefinition definition =
                new DefaultTransactionDefinition(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
        definition.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
        definition.setName("idem:storeTransaction");
        return definition;
    }

    /** A transaction the manager began for one idempotent call. */
    private record Begun(PlatformTransactionManager manager, TransactionStatus status, Connection connection)
            implements Transaction {
        @Override
        public void commit() {
            manager.commit(status);
        }

        @Override
        public void rollback() {
            if (!status.isCompleted()) {
                manager.rollback(status);
            }
        }
    }
}
