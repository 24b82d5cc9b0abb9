package dev.idem.reliability;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * A {@link DataSource} that counts the SQL statements executed through it: every {@code execute*} call on a
 * statement borrowed through it (a batch counts once). How a worker of the herd reports the store's statements
 * per caller, since {@code pg_stat_statements} is not something a test may assume is enabled.
 */
final class CountingDataSource {
    private static final Set<Class<?>> WRAPPED = Set.of(Connection.class, Statement.class, PreparedStatement.class,
            CallableStatement.class);

    private final AtomicLong executed = new AtomicLong();
    private final DataSource counting;

    CountingDataSource(DataSource target) {
        this.counting = wrap(DataSource.class, target);
    }

    DataSource dataSource() {
        return counting;
    }

    long executed() {
        return executed.get();
    }

    void reset() {
        executed.set(0);
    }

    private <T> T wrap(Class<T> type, Object target) {
        InvocationHandler handler = (proxy, method, args) -> invoke(target, method, args);
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
    }

    private Object invoke(Object target, Method method, Object[] args) throws Throwable {
        Object result;
        try {
            result = method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        } finally {
            if (method.getName().startsWith("execute")) {
                executed.incrementAndGet(); // once it has returned: a count of at least one means a store answer
            }
        }
        Class<?> returned = method.getReturnType();
        return result != null && WRAPPED.contains(returned) ? wrap(returned, result) : result;
    }
}
