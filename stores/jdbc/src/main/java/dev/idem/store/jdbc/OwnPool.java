package dev.idem.store.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.IdempotencyConfigurationException;
import dev.idem.IdempotencyStoreException;
import dev.idem.IdempotencyStoreUnreachableException;
import jakarta.annotation.Nullable;

import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * The small HikariCP pool a store opens to a JDBC URL when it is given no data source: connection attempts bounded
 * by {@link JdbcIdempotencyStore#CONNECTION_TIMEOUT_MILLIS}, one connection opened at once so a misconfigured or
 * unreachable database fails the store's start, and passwords never in a message.
 */
final class OwnPool {
    private OwnPool() {
    }

    /**
     * Opens the pool.
     *
     * @param url             the JDBC URL; its driver must be on the class path
     * @param user            the user, or null for the URL's
     * @param password        the password, or null for the URL's
     * @param maximumPoolSize the most connections the pool holds
     * @return the open pool, which the store closes
     * @throws IdempotencyConfigurationException   when no driver on the class path takes {@code url}
     * @throws IdempotencyStoreUnreachableException when the database cannot be reached
     * @throws IdempotencyStoreException            when the pool cannot be opened otherwise
     */
    static HikariDataSource open(String url, @Nullable String user, @Nullable String password, int maximumPoolSize) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        if (user != null) {
            config.setUsername(user);
        }
        if (password != null) {
            config.setPassword(password);
        }
        config.setPoolName("idem-jdbc");
        config.setMaximumPoolSize(maximumPoolSize);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(JdbcIdempotencyStore.CONNECTION_TIMEOUT_MILLIS);
        config.setValidationTimeout(2_000);
        config.setIdleTimeout(60_000);
        config.setMaxLifetime(600_000);
        boundConnecting(config, url);
        // Fail at start when the database is unreachable, after one connection attempt: a misconfigured store
        // should not wait for the first call, and an unreachable one costs its caller one connection timeout.
        config.setInitializationFailTimeout(1);
        requireDriver(url);
        try {
            return new HikariDataSource(config);
        } catch (RuntimeException e) {
            String message = "jdbc store: cannot connect to " + redact(url) + ": " + e.getMessage();
            if (SqlErrors.isConnectionLost(e)) {
                throw new IdempotencyStoreUnreachableException(message, e);
            }
            throw new IdempotencyStoreException(message, e);
        }
    }

    /**
     * Bounds each connection attempt of the pool by {@link JdbcIdempotencyStore#CONNECTION_TIMEOUT_MILLIS}, TCP
     * connect and login, for the network drivers that would otherwise wait for a silent server forever (the URL's
     * own settings win). No socket timeout: that would also bound the statements of a method run in the store's
     * transaction.
     */
    private static void boundConnecting(HikariConfig config, String url) {
        if (url.startsWith("jdbc:postgresql:")) {
            String seconds = String.valueOf(JdbcIdempotencyStore.CONNECTION_TIMEOUT_MILLIS / 1000);
            config.addDataSourceProperty("connectTimeout", seconds);
            config.addDataSourceProperty("loginTimeout", seconds);
        } else if (url.startsWith("jdbc:mariadb:")) {
            config.addDataSourceProperty("connectTimeout",
                    String.valueOf(JdbcIdempotencyStore.CONNECTION_TIMEOUT_MILLIS));
        }
    }

    /** Refuses a URL that no JDBC driver on the class path takes: a mistake to fix, not a database that is away. */
    private static void requireDriver(String url) {
        try {
            DriverManager.getDriver(url);
        } catch (SQLException e) {
            throw new IdempotencyConfigurationException("idem.jdbc.url = \"" + redact(url) + "\": no JDBC driver on"
                    + " the class path takes this URL (" + e.getMessage() + "); check the URL's prefix, such as"
                    + " jdbc:postgresql://db:5432/app, and add the database's driver", e);
        }
    }

    /** {@return {@code url} with any {@code password=} parameter's value hidden} */
    private static String redact(@Nullable String url) {
        return url == null ? "null" : url.replaceAll("(?i)(password=)[^&;]*", "$1***");
    }
}
