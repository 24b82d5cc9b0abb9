package dev.idem.store.jdbc;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.IdempotencyStoreException;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.IdempotencyStoreProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Configuration, the schema check and error reporting, on an H2 file under target/. */
class JdbcStoreTest {
    private static final String URL = "jdbc:h2:file:" + Path.of(System.getProperty("idem.test.dir", "target"), "h2",
            "idem-config").toAbsolutePath() + ";LOCK_TIMEOUT=10000";
    private final List<String> tables = new ArrayList<>();

    @AfterEach
    void dropTables() throws Exception {
        for (String table : tables) {
            JdbcStoreTck.dropTable(URL, table);
        }
    }

    private String table() {
        String table = JdbcStoreTck.uniqueTable();
        tables.add(table);
        return table;
    }

    private static void execute(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(URL); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static ClaimRequest request(String key) {
        return new ClaimRequest(key, "hash", "owner", Duration.ofSeconds(30), Duration.ZERO);
    }

    @Test
    void aKeysHashIsItsSha256WhateverTheThreadHashedBefore() throws Exception {
        // Each thread remembers the last key it hashed: a key hashed again, after another or after an equal key of
        // another String, still gets its own hash.
        String[] keys = {"idem:a:b:1", "idem:a:b:2", "idem:a:b:2", "idem:a:b:1", new String("idem:a:b:1"), "", "é€"};
        for (String key : keys) {
            byte[] expected = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            assertArrayEquals(expected, KeyHashes.of(key), key);
        }
    }

    @Test
    void theProviderIsFoundAsJdbcAndBuildsAStoreFromItsKeys() {
        IdempotencyStoreProvider provider = ServiceLoader.load(IdempotencyStoreProvider.class).stream()
                .map(ServiceLoader.Provider::get).filter(p -> p.name().equals("jdbc")).findFirst().orElseThrow();
        assertInstanceOf(JdbcStoreProvider.class, provider);

        try (IdempotencyStore store = provider.create(Map.of("url", URL, "table", table(), "createTable", "true"),
                Clock.systemUTC())) {
            assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request("idem:orders:charge:1")));
            assertInstanceOf(ClaimOutcome.Existing.class, store.claim(request("idem:orders:charge:1")));
        }
    }

    @Test
    void theProviderRefusesUnknownKeysAMissingUrlAndABadFlag() {
        JdbcStoreProvider provider = new JdbcStoreProvider();
        Clock clock = Clock.systemUTC();
        IdempotencyConfigurationException unknown = assertThrows(IdempotencyConfigurationException.class,
                () -> provider.create(Map.of("url", URL, "tabel", "x"), clock));
        assertTrue(unknown.getMessage().contains("idem.jdbc.tabel"), unknown.getMessage());
        IdempotencyConfigurationException noUrl = assertThrows(IdempotencyConfigurationException.class,
                () -> provider.create(Map.of(), clock));
        assertTrue(noUrl.getMessage().contains("idem.jdbc.url"), noUrl.getMessage());
        assertThrows(IdempotencyConfigurationException.class,
                () -> provider.create(Map.of("url", URL, "createTable", "yes"), clock));
    }

    @Test
    void theSweepIntervalIsOffOrADuration() {
        JdbcStoreProvider provider = new JdbcStoreProvider();
        Clock clock = Clock.systemUTC();
        String table = table();
        try (JdbcIdempotencyStore off = (JdbcIdempotencyStore) provider.create(Map.of("url", URL, "table", table,
                "createTable", "true", "sweepInterval", "off"), clock);
             JdbcIdempotencyStore on = (JdbcIdempotencyStore) provider.create(Map.of("url", URL, "table", table,
                     "sweepInterval", "5m"), clock)) {
            assertEquals(null, off.sweeper());
            assertTrue(on.sweeper().thread().getName().contains(table), on.sweeper().thread().getName());
        }
        IdempotencyConfigurationException bad = assertThrows(IdempotencyConfigurationException.class,
                () -> provider.create(Map.of("url", URL, "sweepInterval", "5x"), clock));
        assertTrue(bad.getMessage().contains("idem.jdbc.sweepInterval = \"5x\""), bad.getMessage());
        assertThrows(IdempotencyConfigurationException.class,
                () -> JdbcIdempotencyStore.builder(URL).sweepInterval(Duration.ZERO));
        assertThrows(IdempotencyConfigurationException.class,
                () -> JdbcIdempotencyStore.builder(URL).sweepBatchSize(0));
    }

    @Test
    void aMissingTokenCounterIsNamedAtStart() throws Exception {
        String table = table();
        JdbcIdempotencyStore.builder(URL).table(table).createTable(true).build().close();
        execute("DROP SEQUENCE " + Dialect.tokens(table));
        IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class,
                () -> JdbcIdempotencyStore.builder(URL).table(table).build());
        assertTrue(e.getMessage().contains("counter " + table + "_tokens of table " + table), e.getMessage());
    }

    @Test
    void mySqlIsRefusedSayingWhy() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Dialect.of("MySQL"));
        assertTrue(e.getMessage().contains("MySQL lacks"), e.getMessage());
        assertEquals(Dialect.MARIADB, Dialect.of("MariaDB"));
    }

    @Test
    void tableNamesAreIdentifiers() {
        for (String bad : List.of("", "1records", "idem records", "records;drop table x", "a.b.c", "\"quoted\"",
                "x".repeat(57), "s." + "x".repeat(57))) {
            assertThrows(IdempotencyConfigurationException.class,
                    () -> JdbcIdempotencyStore.builder(URL).table(bad), bad);
        }
        JdbcIdempotencyStore.builder(URL).table("public.idem_records_2");
        JdbcIdempotencyStore.builder(URL).table("x".repeat(56)); // x..._tokens is still an identifier (63)
    }

    /** Where the start-up errors of a missing table or token counter send an operator for the DDL. */
    private static final String WHERE_THE_DDL_IS = "the DDL in docs/jdbc-store.md (or the resource"
            + " dev/idem/store/jdbc/h2.sql)";

    @Test
    void aMissingTableIsNamedAtStartWithTheWayToCreateIt() {
        String table = table();
        IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class,
                () -> JdbcIdempotencyStore.builder(URL).table(table).build());
        assertTrue(e.getMessage().contains("table " + table + " is missing"), e.getMessage());
        assertTrue(e.getMessage().contains(WHERE_THE_DDL_IS), e.getMessage());
        assertTrue(e.getMessage().contains("idem.jdbc.createTable=true"), e.getMessage());
    }

    @Test
    void aMissingTokenCounterIsNamedAtStartWithTheWayToCreateIt() throws Exception {
        String table = table();
        JdbcIdempotencyStore.builder(URL).table(table).createTable(true).build().close();
        execute("DROP SEQUENCE " + table + "_tokens");
        IdempotencyStoreException e = assertThrows(IdempotencyStoreException.class,
                () -> JdbcIdempotencyStore.builder(URL).table(table).build());
        assertTrue(e.getMessage().startsWith("jdbc store: the fencing-token counter " + table + "_tokens of table "
                + table + " is missing or unusable"), e.getMessage());
        assertTrue(e.getMessage().contains(WHERE_THE_DDL_IS), e.getMessage());
        assertTrue(e.getMessage().contains("idem.jdbc.createTable=true"), e.getMessage());
    }

    @Test
    void aTableOfTheWrongShapeIsNamedWithItsColumnAtStart() throws Exception {
        String missingColumn = table();
        execute("CREATE TABLE " + missingColumn + " (key_hash VARBINARY(32) PRIMARY KEY, idem_key VARCHAR(2048),"
                + " state VARCHAR(16), payload_hash VARCHAR(256), owner VARCHAR(1024), fencing_token BIGINT,"
                + " started_at BIGINT, lease_until BIGINT, completed_at BIGINT, expires_at BIGINT)");
        IdempotencyStoreException missing = assertThrows(IdempotencyStoreException.class,
                () -> JdbcIdempotencyStore.builder(URL).table(missingColumn).build());
        assertTrue(missing.getMessage().contains("table " + missingColumn + " has no column result"),
                missing.getMessage());

        String wrongType = table();
        execute("CREATE TABLE " + wrongType + " (key_hash VARBINARY(32) PRIMARY KEY, idem_key VARCHAR(2048),"
                + " state VARCHAR(16), payload_hash VARCHAR(256), owner VARCHAR(1024), fencing_token BIGINT,"
                + " started_at TIMESTAMP, lease_until BIGINT, completed_at BIGINT, expires_at BIGINT, result BLOB)");
        IdempotencyStoreException type = assertThrows(IdempotencyStoreException.class,
                () -> JdbcIdempotencyStore.builder(URL).table(wrongType).build());
        assertTrue(type.getMessage().contains("column started_at of table " + wrongType), type.getMessage());
    }

    @Test
    void createTableIsIdempotentAndTheDialectIsDetected() {
        String table = table();
        try (JdbcIdempotencyStore first = JdbcIdempotencyStore.builder(URL).table(table).createTable(true).build();
             JdbcIdempotencyStore second = JdbcIdempotencyStore.builder(URL).table(table).createTable(true).build()) {
            assertEquals(Dialect.H2, first.dialect());
            assertEquals(Dialect.H2, second.dialect());
        }
    }

    @Test
    void aDriverErrorBecomesAStoreExceptionNamingTheOperationAndTheScope() throws Exception {
        String table = table();
        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(URL).table(table).createTable(true).build()) {
            execute("DROP TABLE " + table);
            IdempotencyStoreException claim = assertThrows(IdempotencyStoreException.class,
                    () -> store.claim(request("idem:orders:charge:0a1b")));
            assertTrue(claim.getMessage().contains("claim of scope orders:charge"), claim.getMessage());
            assertTrue(!claim.getMessage().contains("0a1b"), "the key's hash stays out: " + claim.getMessage());
            IdempotencyStoreException complete = assertThrows(IdempotencyStoreException.class,
                    () -> store.complete("idem:orders:refund:0a1b", 1, new byte[0], Duration.ofMinutes(1)));
            assertTrue(complete.getMessage().contains("complete of scope orders:refund"), complete.getMessage());
        }
    }

    @Test
    void aStoreOverADataSourceLeavesItOpen() throws Exception {
        org.h2.jdbcx.JdbcDataSource dataSource = new org.h2.jdbcx.JdbcDataSource();
        dataSource.setURL(URL);
        String table = table();
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).table(table).createTable(true).build();
        assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request("idem:a:b:c")));
        store.close();
        assertThrows(IdempotencyStoreException.class, () -> store.get("idem:a:b:c"));
        try (Connection c = dataSource.getConnection()) {
            assertTrue(c.isValid(1), "the caller's data source is still usable");
        }
    }
}
