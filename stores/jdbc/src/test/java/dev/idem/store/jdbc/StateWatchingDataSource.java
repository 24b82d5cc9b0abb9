package dev.idem.store.jdbc;

import jakarta.annotation.Nullable;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/**
 * A data source over real connections (a new one per {@link #getConnection()}, from {@link DriverManager}) that
 * watches what its user does to their state, and can act as a transaction-aware data source does (Spring's
 * {@code TransactionAwareDataSourceProxy}): while an application's connection is {@link #bind bound} to the thread,
 * every {@link #getConnection()} on that thread hands out that very connection, whose {@code close()} does nothing.
 *
 * <ul>
 *   <li>{@link #applicationChanges()}: every call that changes or ends the transaction or the state of a bound
 *       application connection ({@code setAutoCommit}, {@code commit}, {@code rollback()},
 *       {@code setTransactionIsolation}, ...), which its borrower must never make.</li>
 *   <li>{@link #returnedAltered()}: every connection of its own closed in another state (auto-commit, isolation,
 *       read-only, catalog, schema) than it was handed out in.</li>
 * </ul>
 */
final class StateWatchingDataSource extends ConnectionsOnlyDataSource {
    /** What changes a connection's state or ends its transaction. */
    private static final Set<String> CHANGES = Set.of("setAutoCommit", "commit", "rollback", "abort",
            "setTransactionIsolation", "setReadOnly", "setCatalog", "setSchema", "setHoldability");

    private final String url;
    private final boolean autoCommit;
    private final ThreadLocal<Connection> bound = new ThreadLocal<>();
    private final List<String> applicationChanges = Collections.synchronizedList(new ArrayList<>());
    private final List<String> returnedAltered = Collections.synchronizedList(new ArrayList<>());

    /**
     * @param url        the database's JDBC URL
     * @param autoCommit the auto-commit mode its own connections are handed out in (a pool's default)
     */
    StateWatchingDataSource(String url, boolean autoCommit) {
        this.url = url;
        this.autoCommit = autoCommit;
    }

    /** Hands out {@code application} on this thread until {@link #unbind}, as inside the application's transaction. */
    void bind(Connection application) {
        bound.set(application);
    }

    void unbind() {
        bound.remove();
    }

    /** {@return what borrowers did to a bound application connection: nothing, for a well-behaved one} */
    List<String> applicationChanges() {
        return List.copyOf(applicationChanges);
    }

    /** {@return the connections of its own that came back in another state than they left in} */
    List<String> returnedAltered() {
        return List.copyOf(returnedAltered);
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection application = bound.get();
        if (application != null) {
            return watching(application, null);
        }
        Connection own = DriverManager.getConnection(url);
        own.setAutoCommit(autoCommit);
        return watching(own, State.of(own));
    }

    /**
     * A proxy of {@code target}: for an application's connection ({@code handedOut} null) it records every change
     * and ignores {@code close()}; for one of its own it compares the state at {@code close()} with
     * {@code handedOut}, then closes it.
     */
    private Connection watching(Connection target, @Nullable State handedOut) {
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    String name = method.getName();
                    boolean toSavepoint = name.equals("rollback") && args != null && args.length == 1;
                    if (handedOut == null && CHANGES.contains(name) && !toSavepoint) {
                        applicationChanges.add(name + (args == null ? "()" : "(" + args[0] + ")"));
                    }
                    if (name.equals("close") && method.getParameterCount() == 0) {
                        if (handedOut == null) {
                            return null; // the application's: it closes it itself
                        }
                        if (!target.isClosed()) {
                            State returned = State.of(target);
                            if (!returned.equals(handedOut)) {
                                returnedAltered.add("handed out " + handedOut + ", returned " + returned);
                            }
                        }
                    }
                    try {
                        return method.invoke(target, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** The state of a connection a borrower must give back as it got it. */
    private record State(boolean autoCommit, int isolation, boolean readOnly, String catalog, String schema) {
        static State of(Connection c) throws SQLException {
            return new State(c.getAutoCommit(), c.getTransactionIsolation(), c.isReadOnly(), c.getCatalog(),
                    c.getSchema());
        }
    }
}
