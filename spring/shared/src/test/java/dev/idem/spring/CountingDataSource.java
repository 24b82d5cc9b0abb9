package dev.idem.spring;

import org.springframework.jdbc.datasource.DelegatingDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;

/** The application's pool, counting the connections borrowed from it, so a test sees who uses it. */
final class CountingDataSource extends DelegatingDataSource implements AutoCloseable {
    private final AtomicInteger borrowed = new AtomicInteger();

    CountingDataSource(DataSource pool) {
        super(pool);
    }

    @Override
    public Connection getConnection() throws SQLException {
        borrowed.incrementAndGet();
        return super.getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        borrowed.incrementAndGet();
        return super.getConnection(username, password);
    }

    int borrowed() {
        return borrowed.get();
    }

    @Override
    public void close() throws Exception {
        if (getTargetDataSource() instanceof AutoCloseable pool) {
            pool.close();
        }
    }
}
