package dev.idem.store.jdbc;

import jakarta.annotation.Nullable;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The database transaction of the calling thread, for methods declared with
 * {@code @Idempotent(storeTransaction = REQUIRED)} or {@code MANDATORY} over the jdbc store (its transactional mode).
 *
 * <p><b>Inside such a method</b>, {@link #connection()} is the connection of the transaction that holds the call's
 * claim: every write made through it commits with the claim and the completion, or rolls back with them. When Idem
 * began the transaction, the connection it hands out refuses {@code commit()}, {@code rollback()} and
 * {@code setAutoCommit(...)} with an {@link SQLException}: ending the transaction early would commit a claim without
 * its completion. Its {@code close()} does nothing (Idem returns it to the pool), so a try-with-resources around it is
 * harmless. Savepoints of the method's own, and rolling back to them, are allowed.
 *
 * <p><b>An application that has its own transaction</b> on the store's database (the same database; the same pool
 * or another) binds it to the thread for the calls that should join it, and commits it itself:
 * <pre>{@code
 * try (Connection c = dataSource.getConnection()) {
 *     c.setAutoCommit(false);
 *     try (JdbcTransactions.Scope joined = JdbcTransactions.join(c)) {
 *         orders.place(order);      // @Idempotent(storeTransaction = REQUIRED or MANDATORY)
 *         audit.record(order, c);
 *     }
 *     c.commit();                   // the claim, its completion and every write above, or none of them
 * }
 * }</pre>
 * This is how Idem finds the application's transaction without a transaction manager: a binding the application
 * opens explicitly, scoped by try-with-resources, on the thread that runs the calls. A transaction manager's own
 * transactions (Spring's) reach the store through {@link ApplicationTransactions} instead.
 *
 * <p>A thread holds one binding at a time; a binding made inside another hides it until closed. Bindings are closed
 * on the thread that made them, innermost first.
 */
public final class JdbcTransactions {
    private static final ThreadLocal<Binding> CURRENT = new ThreadLocal<>();
    /** What the method may not do to a transaction Idem began: end it. */
    private static final Set<String> ENDING = Set.of("commit", "rollback", "setAutoCommit", "abort");

    private JdbcTransactions() {
    }

    /**
     * Binds the application's transaction on {@code connection} to this thread, so that idempotent methods declared
     * with {@code storeTransaction} claim their keys in it. Idem never commits, rolls back or closes it: a call that
     * joins it settles only its own part (through a savepoint), and the application's commit or rollback takes the
     * claim and its completion along with everything else.
     *
     * @param connection a connection to the store's database with auto-commit off (a transaction in progress);
     *                   PostgreSQL's default READ COMMITTED lets a concurrent caller of the same key get the
     *                   committed result, where a stricter isolation gives it a serialization failure to retry
     * @return the binding; closing it restores what was bound before
     * @throws IllegalStateException when the connection is in auto-commit mode (there is no transaction to join)
     *                               or cannot be asked
     */
    public static Scope join(Connection connection) {
        Objects.requireNonNull(connection, "connection");
        boolean autoCommit;
        try {
            autoCommit = connection.getAutoCommit();
        } catch (SQLException e) {
            throw new IllegalStateException("JdbcTransactions.join: the connection cannot be used: " + e.getMessage(),
                    e);
        }
        if (autoCommit) {
            throw new IllegalStateException("JdbcTransactions.join: the connection is in auto-commit mode, so there"
                    + " is no transaction to join; call connection.setAutoCommit(false) first");
        }
        return bind(connection, connection, true);
    }

    /**
     * The connection of the transaction bound to this thread: inside an idempotent method declared with
     * {@code storeTransaction}, the one that holds its claim.
     *
     * @return the connection; the application's own when it joined, else one whose transaction Idem ends
     * @throws IllegalStateException outside such a method and outside {@link #join}
     */
    public static Connection connection() {
        Binding binding = CURRENT.get();
        if (binding == null) {
            throw new IllegalStateException("JdbcTransactions.connection(): no transaction is bound to this thread;"
                    + " it is available inside an @Idempotent(storeTransaction = REQUIRED or MANDATORY) method run"
                    + " over the jdbc store, and inside JdbcTransactions.join(connection)");
        }
        return binding.exposed;
    }

    /** {@return the connection of the transaction bound to this thread, or empty when there is none} */
    public static Optional<Connection> current() {
        Binding binding = CURRENT.get();
        return binding == null ? Optional.empty() : Optional.of(binding.exposed);
    }

    /** The raw connection bound to this thread, for the store; null when none is. */
    @Nullable
    static Connection bound() {
        Binding binding = CURRENT.get();
        return binding == null ? null : binding.connection;
    }

    /** Binds a transaction Idem began: the method gets a connection that cannot end it. */
    static Scope bindOwn(Connection connection) {
        Connection guarded = (Connection) Proxy.newProxyInstance(JdbcTransactions.class.getClassLoader(),
                new Class<?>[] {Connection.class}, new Guard(connection));
        return bind(connection, guarded, false);
    }

    private static Scope bind(Connection connection, Connection exposed, boolean application) {
        Binding binding = new Binding(connection, exposed, CURRENT.get());
        CURRENT.set(binding);
        return new Scope(binding, application);
    }

    /** A connection bound to a thread, and the binding it hides. */
    private record Binding(Connection connection, Connection exposed, @Nullable Binding hidden) {
    }

    /**
     * A transaction bound to the thread that made it; {@link #close()} unbinds it (and never ends the transaction).
     */
    public static final class Scope implements AutoCloseable {
        private final Binding binding;
        private final boolean application;
        private boolean closed;

        private Scope(Binding binding, boolean application) {
            this.binding = binding;
            this.application = application;
        }

        /**
         * Unbinds the transaction, binding again what it hid. Closing twice does nothing.
         *
         * @throws IllegalStateException when another binding made inside this one is still open (close that one
         *                               first), or when called on another thread
         */
        @Override
        public void close() {
            if (closed) {
                return;
            }
            if (CURRENT.get() != binding) {
                throw new IllegalStateException("JdbcTransactions: a binding is closed out of order or on another"
                        + " thread than the one that made it" + (application ? " (JdbcTransactions.join)" : ""));
            }
            closed = true;
            if (binding.hidden == null) {
                CURRENT.remove();
            } else {
                CURRENT.set(binding.hidden);
            }
        }
    }

    /** Refuses what would end a transaction Idem began, ignores a close, passes everything else through. */
    private static final class Guard implements InvocationHandler {
        private final Connection connection;

        Guard(Connection connection) {
            this.connection = connection;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            String name = method.getName();
            if (name.equals("close") && method.getParameterCount() == 0) {
                return null; // Idem closes it after ending the transaction
            }
            if (ENDING.contains(name) && !(name.equals("rollback") && args != null && args.length == 1)) {
                throw new SQLException("JdbcTransactions.connection(): " + name + "() is refused: Idem began this"
                        + " transaction and ends it when the idempotent method returns (commit) or throws (rollback),"
                        + " so that the method's writes, its claim and its completion stay one transaction");
            }
            if (name.equals("equals") && args != null && args.length == 1) {
                return proxy == args[0];
            }
            if (name.equals("hashCode") && method.getParameterCount() == 0) {
                return System.identityHashCode(proxy);
            }
            try {
                return method.invoke(connection, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }
}
