package dev.idem.store.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What differs between the databases the store supports: the schema, the database's clock in epoch milliseconds,
 * the insert that does nothing when the key exists, how a fencing token is drawn, and how expired rows are deleted
 * in bounded batches.
 *
 * <p>Fencing tokens come from one counter per table, {@code <table>_tokens}, never from the key's row: a sequence
 * where the database has one (PostgreSQL, H2, MariaDB), else a one-row counter table (SQLite, whose writers are
 * serialised anyway). A counter that only grows makes every token larger than any the key had, even after the
 * sweeper deleted the key's row, provided no row of the key is deleted between a claim's draw and its write: how each
 * database keeps the sweeper out of that gap is {@link #sweepsAfterAMargin}'s and {@link #deleteBatch}'s concern.
 */
enum Dialect {
    // date_part returns a float8, which PostgreSQL computes and multiplies faster than EXTRACT's numeric (a numeric
    // since PostgreSQL 14; docs/benchmarks.md has the measurement); floor keeps the truncation of the other dialects,
    // so a stored time is never ahead of the server's clock. A float8 holds today's epoch seconds to about a quarter
    // of a microsecond, so a time that falls exactly on a millisecond may read one millisecond low, never high (the
    // TCK allows server-clock stores far more).
    // statement_timestamp(), not now(): now() is the start of the transaction, which in the transactional mode may be
    // the application's and as old as it likes.
    POSTGRESQL("postgresql.sql", "CAST(floor(date_part('epoch', statement_timestamp()) * 1000) AS BIGINT)",
            "INSERT INTO %s (%s) VALUES (%s) ON CONFLICT (key_hash) DO NOTHING", "nextval('%s')", false, false),
    // CURRENT_TIMESTAMP is the start of the transaction on H2 too; the store runs every statement on H2 in auto-commit
    // mode (its transactional mode is PostgreSQL's only), where that is the statement's start.
    H2("h2.sql", "DATEDIFF(MILLISECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', CURRENT_TIMESTAMP(3))",
            "INSERT INTO %s (%s) VALUES (%s)", "NEXT VALUE FOR %s", false, true),
    SQLITE("sqlite.sql", "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)",
            "INSERT INTO %s (%s) VALUES (%s) ON CONFLICT (key_hash) DO NOTHING", null, false, false),
    MARIADB("mariadb.sql", "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(3)) DIV 1000)",
            "INSERT INTO %s (%s) VALUES (%s)", "NEXT VALUE FOR %s", true, true);

    private final String ddlResource;
    /**
     * The database's now, in epoch milliseconds, stable within one statement: the time the statement began, never
     * the start of an enclosing transaction (MariaDB's UTC_TIMESTAMP and SQLite's 'now' are the statement's anyway).
     */
    final String nowMillis;
    private final String insertIfAbsent;
    /** The next value of a sequence named %s, as an expression; null where there are no sequences (SQLite). */
    private final String nextToken;
    /**
     * PostgreSQL: the number a key is locked by (see {@link PostgresqlClaimStatements#keyLock}), from its stored
     * hash: the hash's first eight bytes as a signed big-endian bigint.
     */
    static final String KEY_LOCK = "('x' || encode(substring(key_hash FROM 1 FOR 8), 'hex'))::bit(64)::bigint";

    /** Whether a single-table DELETE takes a LIMIT (MariaDB, which refuses LIMIT in an IN subquery). */
    private final boolean deleteWithLimit;
    /**
     * Whether the sweeper leaves a row for {@code JdbcIdempotencyStore.SWEEP_MARGIN} after its record stopped
     * counting: H2 and MariaDB, whose claims draw a token by one statement and insert by the next with nothing that
     * keeps the sweeper out in between. PostgreSQL's claims draw holding the key's lock, which the sweeper takes to
     * delete the key's row; SQLite's draw and insert in one write, and SQLite runs one writer at a time.
     */
    final boolean sweepsAfterAMargin;

    Dialect(String ddlResource, String nowMillis, String insertIfAbsent, String nextToken, boolean deleteWithLimit,
            boolean sweepsAfterAMargin) {
        this.ddlResource = ddlResource;
        this.nowMillis = nowMillis;
        this.insertIfAbsent = insertIfAbsent;
        this.nextToken = nextToken;
        this.deleteWithLimit = deleteWithLimit;
        this.sweepsAfterAMargin = sweepsAfterAMargin;
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
        if (p.contains("mariadb")) {
            return MARIADB;
        }
        if (p.contains("mysql")) {
            throw new IllegalArgumentException("the jdbc store does not support MySQL yet: its fencing tokens come from"
                    + " a sequence, which MySQL lacks; it supports PostgreSQL, MariaDB 10.3+, SQLite and H2");
        }
        throw new IllegalArgumentException("the jdbc store does not support " + productName
                + "; it supports PostgreSQL, MariaDB 10.3+, SQLite and H2");
    }

    /**
     * The database's clock when the expression is evaluated, in epoch milliseconds, for a statement that may first
     * wait on a lock and should stamp with the time it got it: PostgreSQL's {@code clock_timestamp()}; elsewhere
     * {@link #nowMillis}.
     */
    String clockMillis() {
        return this == POSTGRESQL ? nowMillis.replace("statement_timestamp()", "clock_timestamp()") : nowMillis;
    }

    String insertIfAbsent(String table, String columns, String values) {
        return String.format(Locale.ROOT, insertIfAbsent, table, columns, values);
    }

    /** The counter the fencing tokens of {@code table} are drawn from. */
    static String tokens(String table) {
        return table + "_tokens";
    }

    /**
     * The next fencing token as an SQL expression, to draw it inside a claim's own statement; empty where the
     * database has no sequences and {@link #drawToken} is a statement of its own.
     */
    Optional<String> nextToken(String table) {
        return Optional.ofNullable(nextToken).map(f -> String.format(Locale.ROOT, f, tokens(table)));
    }

    /** A statement whose one row and column is the next fencing token of {@code table}. */
    String drawToken(String table) {
        return nextToken(table).map(next -> "SELECT " + next)
                .orElseGet(() -> "UPDATE " + tokens(table) + " SET value = value + 1 WHERE id = 1 RETURNING value");
    }

    /**
     * Deletes at most {@code ?} (the last parameter) rows of {@code table} for which {@code condition} holds; the
     * condition is checked again on each row as it is deleted, so a row claimed meanwhile stays.
     */
    String deleteBatch(String table, String condition) {
        if (deleteWithLimit) {
            return "DELETE FROM " + table + " WHERE " + condition + " LIMIT ?";
        }
        if (this == POSTGRESQL) {
            // Each row is deleted only holding its key's lock, taken by a claim that inserts the key's row before it
            // draws the token (PostgresqlClaimStatements.PG_KEY_LOCKED): a row a claim is inserting over is left for
            // the next sweep. Locks are tried only on the batch's rows, so a sweep holds at most a batch of them.
            return "DELETE FROM " + table + " WHERE " + condition + " AND key_hash IN (SELECT key_hash FROM"
                    + " (SELECT key_hash FROM " + table + " WHERE " + condition + " LIMIT ? FOR UPDATE SKIP LOCKED)"
                    + " AS batch WHERE pg_try_advisory_xact_lock(" + KEY_LOCK + "))";
        }
        return "DELETE FROM " + table + " WHERE " + condition + " AND key_hash IN (SELECT key_hash FROM " + table
                + " WHERE " + condition + " LIMIT ?)";
    }

    /** How many times {@link #deleteBatch} writes its condition, so the caller binds its parameters that often. */
    int deleteBatchConditions() {
        return deleteWithLimit ? 1 : 2;
    }

    /**
     * The statements creating {@code table} and its token counter if they are missing, as shipped in the resource
     * (and printed in docs/jdbc-store.md).
     */
    List<String> ddl(String table) {
        try (InputStream in = Dialect.class.getResourceAsStream(ddlResource)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + ddlResource);
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("${table}", table);
            return Arrays.stream(text.split(";"))
                    .map(statement -> statement.lines().filter(line -> !line.strip().startsWith("--"))
                            .collect(Collectors.joining("\n")).trim())
                    .filter(statement -> !statement.isEmpty())
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
