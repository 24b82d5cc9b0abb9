package dev.idem.benchmarks;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Logger;

/**
 * A {@link DataSource} that counts the statements executed through it: each {@code execute}, {@code executeQuery},
 * {@code executeUpdate} (or batch) is one round trip to the database. Connections and statements are the pool's own,
 * wrapped in proxies that count and pass every call on.
 */
final class CountingDataSource implements DataSource {
    private final DataSource target;
    private final LongAdder executed = new LongAdder();

    CountingDataSource(DataSource target) {
        this.target = target;
    }

    /** Statements executed so far. */
    long executed() {
        return executed.sum();
    }

    @Override
    public Connection getConnection() throws SQLException {
        return wrap(target.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return wrap(target.getConnection(username, password));
    }

    private Connection wrap(Connection connection) {
        return proxy(Connection.class, connection, (proxy, method, args) -> {
            Object result = invoke(connection, method, args);
            if (result instanceof Statement statement) {
                Class<? extends Statement> type = method.getReturnType().asSubclass(Statement.class);
                return proxy(type, statement, (p, m, a) -> {
                    if (m.getName().startsWith("execute")) {
                        executed.increment();
                    }
                    return invoke(statement, m, a);
                });
            }
            return result;
        });
    }

    private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static <T> T proxy(Class<T> type, Object target, InvocationHandler handler) {
        return type.cast(Proxy.newProxyInstance(CountingDataSource.class.getClassLoader(), new Class<?>[] {type},
                handler));
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return target.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        target.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        target.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return target.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return target.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return target.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return target.isWrapperFor(iface);
    }
}
