package dev.idem.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.IdempotencyConfigurationException;
import dev.idem.IdempotencyStoreException;
import dev.idem.IdempotencyStoreUnreachableException;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.RecordState;
import dev.idem.store.TransactionalClaims;
import jakarta.annotation.Nullable;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

// The store is its builder and the IdempotencyStore methods, each run on a connection of StoreConnections: a claim is
// the database's ClaimStrategy (PostgresqlClaims; OptimisticClaims on MariaDB, H2 and SQLite), every other statement
// is RecordStatements', and TableShape and TokenCounter check the table at start.
/**
 * An {@link IdempotencyStore} over one SQL table, shared by every process that uses the database: PostgreSQL,
 * MariaDB (10.3+), SQLite or H2, detected from the database's metadata.
 *
 * <p><b>Time</b> is the database's: every timestamp is the database's now (in epoch milliseconds, stored as BIGINT)
 * read in the statement that writes it, so processes with skewed clocks agree: the statement's time, never the start
 * of a transaction around it (in the transactional mode, an application's transaction may be old).
 *
 * <p><b>Fencing tokens</b> are drawn from one counter per table ({@code <table>_tokens}: a sequence, or on SQLite a
 * one-row table) after the claim has seen the key's latest committed row, so every token is larger than any the key
 * had: across release, expiry and deletion, across every process over the database, and after the
 * {@linkplain Builder#sweepInterval sweeper} deleted the key's row. A claim that inserts the key's row draws its token
 * where no other claim of the key and no deletion of its row can come between the draw and the insert: on
 * PostgreSQL holding the key's lock, which the sweeper needs too; on SQLite in one write. On H2 and MariaDB the
 * sweeper instead leaves a row for {@link #SWEEP_MARGIN} after its record stopped counting, which covers any claim
 * whose read and insert are less than that apart. Tokens of one key are therefore increasing, in the order the key is
 * held, but not consecutive.
 *
 * <p><b>Keys</b> are identified by the SHA-256 of their UTF-8 bytes (the primary key, so no index limits the key's
 * length); the key itself is stored beside it and returned exactly.
 *
 * <p>Create one with {@link #builder(DataSource)} or {@link #builder(String)}, or configure the {@code jdbc} store
 * ({@code idem.jdbc.url}, ...; see {@link JdbcStoreProvider}).
 */
public final class JdbcIdempotencyStore implements IdempotencyStore {

    /** The table's name unless configured. */
    public static final String DEFAULT_TABLE = "idem_records";

    /**
     * How long the store's own pool waits for a connection, at start and for each operation, before the database
     * counts as unreachable.
     */
    public static final int CONNECTION_TIMEOUT_MILLIS = 5_000;

    /** The most rows one statement of the sweeper deletes, unless configured. */
    public static final int DEFAULT_SWEEP_BATCH_SIZE = 500;

    /**
     * How long after its lease passed an abandoned in-progress record is kept before the sweeper deletes it. Until
     * then its owner may still complete it (the SPI lets a store forget such a record after a grace period it
     * documents); a live owner renews every third of its lease and never comes near it.
     */
    public static final Duration ABANDONED_GRACE = Duration.ofHours(1);

    /**
     * On H2 and MariaDB ({@link Dialect#sweepsAfterAMargin}), how long after a record stopped counting (released,
     * deleted, expired) the sweeper leaves its row. There a claim of an absent key draws its token by its read and
     * inserts the row by a second statement, and nothing keeps the sweeper from deleting a row of the key in between:
     * a claim that drew, then inserted after another claim held the key, released it and the sweeper deleted its
     * row, would acquire below the token that claim had. That claim's row is swept no sooner than this margin after
     * the first claim drew, so the first claim's insert meets the row and it claims again, with a new token, unless
     * its two statements are further apart than the margin.
     */
    static final Duration SWEEP_MARGIN = Duration.ofMinutes(1);

    private static final Pattern IDENTIFIER = Pattern.compile(
            "([A-Za-z_][A-Za-z0-9_]{0,62}\\.)?[A-Za-z_][A-Za-z0-9_]{0,55}");
    private final String table;
    private final Dialect dialect;
    private final StoreClock clock;
    /** The claims of the store's database: {@link PostgresqlClaims}, or {@link OptimisticClaims} elsewhere. */
    private final ClaimStrategy claims;
    private final RecordStatements records;
    @Nullable
    private final ExpiredRowSweeper sweeper;
    private final JdbcTransactionalClaims transactionalClaims;
    private final StoreConnections connections;

    private JdbcIdempotencyStore(Builder b) {
        this.table = b.table;
        HikariDataSource ownedPool = b.dataSource == null
                ? OwnPool.open(b.url, b.user, b.password, b.maximumPoolSize) : null;
        DataSource dataSource = ownedPool == null ? b.dataSource : ownedPool;
        this.connections = new StoreConnections(dataSource, ownedPool, table, b.manualCommitConnections);
        try {
            Connection first = dataSource.getConnection();
            try (first; AutoCommitScope own = AutoCommitScope.on(connections.requireOwn(first, "start", ""))) {
                this.dialect = Dialect.of(first.getMetaData().getDatabaseProductName());
                if (dialect == Dialect.SQLITE) {
                    // Readers never block the writer and the other way round; kept by the database file.
                    try (Statement s = first.createStatement()) {
                        s.execute("PRAGMA journal_mode=WAL");
                    }
                }
                if (b.createTable) {
                    for (String statement : dialect.ddl(table)) {
                        try (Statement s = first.createStatement()) {
                            s.execute(statement);
                        } catch (SQLException e) {
                            // Processes that start together all create the table: the one that lost the race
                            // finds it made, and the shape check below reads what the winner made.
                            if (!SqlErrors.isCreatedConcurrently(e)) {
                                throw e;
                            }
                        }
                    }
                }
                TableShape.check(first, table, dialect);
                new TokenCounter(table, dialect).check(first);
            }
        } catch (SQLException | RuntimeException e) {
            if (ownedPool != null) {
                ownedPool.close();
            }
            if (e instanceof IdempotencyStoreException ise) {
                throw ise;
            }
            String message = "jdbc store: cannot start over table " + table + ": " + e.getMessage();
            throw SqlErrors.isConnectionLost(e) ? new IdempotencyStoreUnreachableException(message, e)
                    : new IdempotencyStoreException(message, e);
        }
        this.clock = new StoreClock(dialect, b.offsetMillis);
        this.records = new RecordStatements(table, dialect, clock, b.sweepBatchSize);
        this.claims = dialect == Dialect.POSTGRESQL
                ? new PostgresqlClaims(table, clock, records, dialect.nextToken(table).orElseThrow(), b.claimStart)
                : new OptimisticClaims(table, dialect, clock, new TokenCounter(table, dialect));
        this.transactionalClaims = new JdbcTransactionalClaims(this, dataSource, b.applicationTransactions);
        this.sweeper = b.sweepInterval == null ? null
                : new ExpiredRowSweeper(table, b.sweepInterval, b.sweepBatchSize, this::deleteExpiredBatch);
    }

    /**
     * A store over a {@link DataSource} the caller owns (and closes): the store borrows a connection per operation.
     *
     * @param dataSource a pooled data source of a PostgreSQL, MariaDB, SQLite or H2 database
     * @return a builder; {@link Builder#build()} checks the table
     */
    public static Builder builder(DataSource dataSource) {
        return new Builder(Objects.requireNonNull(dataSource, "dataSource"), null);
    }

    /**
     * A store that opens its own small pool (HikariCP) to {@code jdbcUrl} and closes it with the store.
     *
     * @param jdbcUrl the database's JDBC URL; its driver must be on the class path
     * @return a builder; {@link Builder#build()} connects and checks the table
     */
    public static Builder builder(String jdbcUrl) {
        return new Builder(null, Objects.requireNonNull(jdbcUrl, "jdbcUrl"));
    }

    /** Configures a {@link JdbcIdempotencyStore}. */
    public static final class Builder {
        @Nullable
        private final DataSource dataSource;
        @Nullable
        private final String url;
        @Nullable
        private String user;
        @Nullable
        private String password;
        private String table = DEFAULT_TABLE;
        private boolean createTable;
        private int maximumPoolSize = 10;
        private LongSupplier offsetMillis = () -> 0L;
        @Nullable
        private Duration sweepInterval;
        private int sweepBatchSize = DEFAULT_SWEEP_BATCH_SIZE;
        private ClaimPaths.Start claimStart = ClaimPaths.Start.ADAPTIVE;
        private boolean manualCommitConnections;
        @Nullable
        private ApplicationTransactions applicationTransactions;

        private Builder(@Nullable DataSource dataSource, @Nullable String url) {
            this.dataSource = dataSource;
            this.url = url;
        }

        /**
         * The user the pool connects as (only with a URL).
         *
         * @param user the database user
         * @return this builder
         */
        public Builder user(@Nullable String user) {
            this.user = user;
            return this;
        }

        /**
         * The password the pool connects with (only with a URL).
         *
         * @param password the database password
         * @return this builder
         */
        public Builder password(@Nullable String password) {
            this.password = password;
            return this;
        }

        /**
         * The table the records live in, {@value JdbcIdempotencyStore#DEFAULT_TABLE} unless set.
         *
         * @param table an identifier, optionally schema-qualified: letters, digits and underscores
         * @return this builder
         * @throws IdempotencyConfigurationException when {@code table} is not such an identifier
         */
        public Builder table(String table) {
            if (table == null || !IDENTIFIER.matcher(table).matches()) {
                throw new IdempotencyConfigurationException("idem.jdbc.table = \"" + table + "\" is not a table"
                        + " name: letters, digits and underscores, starting with a letter or underscore, at most 56"
                        + " characters (the store adds _tokens for its token counter), optionally schema.table");
            }
            this.table = table;
            return this;
        }

        /**
         * Whether {@link #build()} creates the table when it is missing (false unless set).
         *
         * @param createTable true to create the table if missing
         * @return this builder
         */
        public Builder createTable(boolean createTable) {
            this.createTable = createTable;
            return this;
        }

        /**
         * Declares that the data source's idle connections start in manual-commit mode (a pool configured with
         * auto-commit off), so the store switches each to auto-commit mode for its statements and back before giving
         * it back. Only with a data source. Without this, a connection handed out in manual-commit mode is refused,
         * changing nothing: it may hold the application's transaction (a transaction-aware data source hands that
         * out), which switching or committing would break.
         *
         * @return this builder
         */
        public Builder manualCommitConnections() {
            this.manualCommitConnections = true;
            return this;
        }

        /**
         * The largest number of connections the store's own pool opens (only with a URL), 10 unless set.
         *
         * @param size at least 1
         * @return this builder
         */
        public Builder maximumPoolSize(int size) {
            if (size < 1) {
                throw new IdempotencyConfigurationException("the pool needs at least one connection: " + size);
            }
            this.maximumPoolSize = size;
            return this;
        }

        /**
         * Deletes expired rows every {@code interval} on a daemon thread of the store's own (off unless set): finished
         * records past their expiry, released and deleted keys' rows, and in-progress records abandoned for
         * {@link JdbcIdempotencyStore#ABANDONED_GRACE} after their lease (on H2 and MariaDB, the first two
         * {@link JdbcIdempotencyStore#SWEEP_MARGIN} later). It never runs on a caller's path, deletes in
         * batches of at most {@link #sweepBatchSize} rows, and stops when the store is closed. Deleting a row never
         * lets a token repeat or go back: tokens come from the table's token counter, not from its rows. Several
         * processes may sweep the same table; on PostgreSQL they skip each other's rows.
         *
         * @param interval the pause between two sweeps, positive; null turns the sweeper off
         * @return this builder
         */
        public Builder sweepInterval(@Nullable Duration interval) {
            if (interval != null && (interval.isNegative() || interval.isZero())) {
                throw new IdempotencyConfigurationException("idem.jdbc.sweepInterval = " + interval
                        + " is not a positive duration; leave it unset (or \"off\") for no sweeper");
            }
            this.sweepInterval = interval;
            return this;
        }

        /**
         * The most rows one statement of the sweeper deletes, {@value JdbcIdempotencyStore#DEFAULT_SWEEP_BATCH_SIZE}
         * unless set: small enough that a sweep never holds many row locks at once. On PostgreSQL each row of a
         * statement's batch also takes its key's advisory lock until the statement ends, and these count against the
         * server's shared lock table ({@code max_locks_per_transaction} times the connections), so keep it to a few
         * thousand at most.
         *
         * @param size at least 1
         * @return this builder
         */
        public Builder sweepBatchSize(int size) {
            if (size < 1) {
                throw new IdempotencyConfigurationException("the sweeper's batch size must be at least 1: " + size);
            }
            this.sweepBatchSize = size;
            return this;
        }

        /**
         * Lets the transactional mode use the transactions of the application's transaction manager on the store's
         * data source (only with a data source): a call joins the one open on its thread, or, for
         * {@code storeTransaction = REQUIRED}, has the manager begin one, so the method's writes through the
         * manager's connection commit and roll back with the claim and the completion. Unless set, the mode joins
         * only what {@link JdbcTransactions#join} bound, and begins transactions on a connection of its own.
         *
         * @param transactions the application's transactions over the data source given to {@link #builder}
         * @return this builder
         * @throws IdempotencyConfigurationException for a store configured with a URL, whose pool no application
         *                                           transaction uses
         */
        public Builder applicationTransactions(ApplicationTransactions transactions) {
            if (dataSource == null) {
                throw new IdempotencyConfigurationException("application transactions need the store to be built"
                        + " on the application's DataSource (JdbcIdempotencyStore.builder(dataSource)), not on a URL");
            }
            this.applicationTransactions = Objects.requireNonNull(transactions, "transactions");
            return this;
        }

        /** Tests only: milliseconds added to the database's now, so a test moves the store's time. */
        Builder serverTimeOffset(LongSupplier offsetMillis) {
            this.offsetMillis = Objects.requireNonNull(offsetMillis, "offsetMillis");
            return this;
        }

        /** Tests only: which statement PostgreSQL's claims start with, chosen by recent claims unless set. */
        Builder claimStart(ClaimPaths.Start start) {
            this.claimStart = Objects.requireNonNull(start, "start");
            return this;
        }

        /**
         * Connects, checks the table's shape (creating it first if asked) and returns the store.
         *
         * @return the store, owned and closed by the caller
         * @throws IdempotencyStoreException when the database is unreachable or unsupported, or the table is
         *                                   missing or has the wrong shape (the message names the table and column)
         */
        public JdbcIdempotencyStore build() {
            return new JdbcIdempotencyStore(this);
        }
    }

    /** The table's name. */
    String table() {
        return table;
    }

    /** The dialect detected from the database. */
    Dialect dialect() {
        return dialect;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Operations

    @Override
    public ClaimOutcome claim(ClaimRequest request) {
        Objects.requireNonNull(request, "request");
        return run("claim", request.key(), c -> claims.claim(c, request));
    }

    /**
     * The claim on {@code c}, in whatever transaction it is: the store's own statement, or a transactional call's.
     *
     * @param lockRow whether the claim locks the key's row whatever its record (the transactional mode, where a
     *                concurrent caller of the key must wait on the row until the transaction ends), rather than
     *                reading it first (or, while keys are new, inserting first: {@link ClaimPaths}) and locking it
     *                only when its record is claimable
     */
    ClaimOutcome claimOn(Connection c, ClaimRequest request, boolean lockRow) throws SQLException {
        return lockRow ? claims.claimLockingTheRow(c, request) : claims.claim(c, request);
    }

    @Override
    public boolean complete(String key, long fencingToken, byte[] result, Duration ttl) {
        return finish("complete", RecordState.COMPLETED, key, fencingToken, result, ttl);
    }

    @Override
    public boolean fail(String key, long fencingToken, byte[] failure, Duration failureTtl) {
        return finish("fail", RecordState.FAILED, key, fencingToken, failure, failureTtl);
    }

    private boolean finish(String operation, RecordState state, String key, long fencingToken, byte[] encoded,
                           Duration ttl) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(encoded, "result");
        Objects.requireNonNull(ttl, "ttl");
        byte[] copy = encoded.clone();
        return run(operation, key, c -> finishOn(c, state, key, fencingToken, copy, ttl));
    }

    /** Finishes the claim on {@code c}, in whatever transaction it is; {@code encoded} is kept as given. */
    boolean finishOn(Connection c, RecordState state, String key, long fencingToken, byte[] encoded, Duration ttl)
            throws SQLException {
        return records.finish(c, state, key, fencingToken, encoded, ttl);
    }

    @Override
    public boolean release(String key, long fencingToken) {
        Objects.requireNonNull(key, "key");
        return run("release", key, c -> records.release(c, key, fencingToken));
    }

    @Override
    public boolean renew(String key, long fencingToken, Duration lease) {
        Objects.requireNonNull(key, "key");
        long leaseMillis = lease.toMillis();
        return run("renew", key, c -> records.renew(c, key, fencingToken, leaseMillis));
    }

    @Override
    public Optional<IdempotencyRecord> get(String key) {
        Objects.requireNonNull(key, "key");
        return run("get", key, c -> records.get(c, key));
    }

    @Override
    public void delete(String key) {
        Objects.requireNonNull(key, "key");
        run("delete", key, c -> records.delete(c, key));
    }

    /**
     * Deletes at most one batch of expired rows (see {@link Builder#sweepInterval}), each checked again as it is
     * deleted, so a row claimed meanwhile stays.
     *
     * @return how many rows were deleted
     */
    int deleteExpiredBatch() {
        return run("sweep", "", records::deleteExpiredBatch);
    }

    /** The sweeper, when one runs. */
    @Nullable
    ExpiredRowSweeper sweeper() {
        return sweeper;
    }

    /**
     * Claims inside the transaction the method writes in (the transactional mode): on PostgreSQL only; see
     * {@link JdbcTransactions} for how a method reaches the transaction and how an application hands over its own.
     *
     * @throws UnsupportedOperationException on MariaDB/MySQL, SQLite and H2, saying why
     */
    @Override
    public TransactionalClaims transactionalClaims() {
        if (dialect != Dialect.POSTGRESQL) {
            throw new UnsupportedOperationException(JdbcTransactionalClaims.whyNot(dialect));
        }
        return transactionalClaims;
    }

    @Override
    public void close() {
        if (connections.closed()) {
            return;
        }
        if (sweeper != null) {
            sweeper.close(); // first, so no sweep meets a closed store
        }
        connections.close();
    }

    /** The store's now: the database's, plus the test offset. */
    Instant serverNow() {
        return run("read the time", "", clock::read);
    }

    /** How the store borrows connections for its operations; for its transactional claims. */
    StoreConnections connections() {
        return connections;
    }

    private <T> T run(String operation, String key, StoreConnections.Work<T> work) {
        return connections.run(operation, key, work);
    }
}
