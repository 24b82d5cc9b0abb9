package dev.idem.store.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * What differs between the databases the store supports: the schema, the database's clock in epoch milliseconds,
 * and the insert that does nothing when the key exists.
 */
enum Dialect {
    POSTGRESQL("postgresql.sql", "CAST(FLOOR(EXTRACT(EPOCH FROM now()) * 1000) AS BIGINT)",
            "INSERT INTO %s (%s) VALUES (%s) ON CONFLICT (key_hash) DO NOTHING"),
    H2("h2.sql", "DATEDIFF(MILLISECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', CURRENT_TIMESTAMP(3))",
            "INSERT INTO %s (%s) VALUES (%s)"),
    SQLITE("sqlite.sql", "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)",
            "INSERT INTO %s (%s) VALUES (%s) ON CONFLICT (key_hash) DO NOTHING"),
    MARIADB("mariadb.sql", "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(3)) DIV 1000)",
            "INSERT INTO %s (%s) VALUES (%s)");

    private final String ddlResource;
    /** The database's now, in epoch milliseconds, stable within one statement. */
    final String nowMillis;
    private final String insertIfAbsent;

    Dialect(String ddlResource, String nowMillis, String insertIfAbsent) {
        this.ddlResource = ddlResource;
        this.nowMillis = nowMillis;
        this.insertIfAbsent = insertIfAbsent;
    }

    /** The dialect of a database, from its product name as the driver reports it. */
    static Dialect of(String productName) {
        String p = productName.toLowerCase(Locale.ROOT);
        if (p.contains("postgresql")) {
            return POSTGRESQL;
        }
        if (p.equals("h2")) {
            return H2;
        }
        if (p.contains("sqlite")) {
            return SQLITE;
        }
        if (p.contains("mariadb") || p.contains("mysql")) {
            return MARIADB;
        }
        throw new IllegalArgumentException("the jdbc store does not support " + productName
                + "; it supports PostgreSQL, MariaDB/MySQL, SQLite and H2");
    }

    String insertIfAbsent(String table, String columns, String values) {
        return String.format(Locale.ROOT, insertIfAbsent, table, columns, values);
    }

    /** The DDL creating {@code table} if it is missing, as shipped in the resource (and printed in the README). */
    String ddl(String table) {
        try (InputStream in = Dialect.class.getResourceAsStream(ddlResource)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + ddlResource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("${table}", table).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
