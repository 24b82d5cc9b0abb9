package dev.idem.store.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.IdempotencyConfigurationException;
import dev.idem.IdempotencyStoreException;
import dev.idem.IdempotencyStoreUnreachableException;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.KeyHasher;
import dev.idem.store.KeyScopes;
import dev.idem.store.RecordState;
import dev.idem.store.StoreCircuit;
import dev.idem.store.TransactionalClaims;
import dev.idem.store.TtlJitter;
import jakarta.annotation.Nullable;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

// More than 500 lines, to be split further: the claim strategies (reading first, inserting first, locking the row,
// drawing a token in one write) still share the store's fields and statements here; the pool (OwnPool), the table's
// check (TableShape), the row mapping (StoredRow) and PostgreSQL's claim statements (PostgresqlClaimStatements) are
// apart.
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
    private static final String ABSENT = StoredRow.ABSENT;
    private static final String COLUMNS = StoredRow.COLUMNS;
    private static final String ROW_COLUMNS = "r." + COLUMNS.replace(", ", ", r.");
    /** Each thread's key hasher and the last key it hashed (see {@link LastKeyHash}). */
    private static final ThreadLocal<LastKeyHash> HASHER = ThreadLocal.withInitial(LastKeyHash::new);
    private final DataSource dataSource;
    @Nullable
    private final HikariDataSource ownedPool;
    private final String table;
    private final Dialect dialect;
    private final LongSupplier offsetMillis;
    private final String now;
    private final int sweepBatchSize;
    @Nullable
    private final ExpiredRowSweeper sweeper;
    private final JdbcTransactionalClaims transactionalClaims;
    /**
     * Whether the data source's connections start in manual-commit mode, as its builder declared
     * ({@link Builder#manualCommitConnections}); otherwise one handed out in manual-commit mode is refused.
     */
    private final boolean manualCommitConnections;
    /**
     * PostgreSQL's claim statements (null elsewhere): reading first (with {@link #takeover} for a claimable row), and
     * locking the row (the transactional mode).
     */
    @Nullable
    private final String claimReadingFirst;
    /** PostgreSQL's plain insert of a key's row, the first statement of a claim while keys are new. */
    @Nullable
    private final String claimInsertingFirst;
    private final ClaimPaths claimPaths;
    @Nullable
    private final String takeover;
    @Nullable
    private final String claimLocking;
    /** MariaDB's and H2's read of the key's row, drawing a token only when the record is absent or claimable. */
    @Nullable
    private final String readWithToken;
    /** The finishing updates, completed and failed: built once, as every statement the store runs per call. */
    private final String complete;
    private final String fail;
    /** Refuses operations at once while the database is unreachable; see {@link #run}. */
    private final StoreCircuit circuit;
    private volatile boolean closed;

    private JdbcIdempotencyStore(Builder b) {
        this.table = b.table;
        this.offsetMillis = b.offsetMillis;
        this.manualCommitConnections = b.manualCommitConnections;
        if (b.dataSource != null) {
            this.dataSource = b.dataSource;
            this.ownedPool = null;
        } else {
            this.ownedPool = OwnPool.open(b.url, b.user, b.password, b.maximumPoolSize);
            this.dataSource = ownedPool;
        }
        try {
            Connection first = dataSource.getConnection();
            try (first; AutoCommitScope own = AutoCommitScope.on(requireOwn(first, "start", ""))) {
                this.dialect = Dialect.of(first.getMetaData().getDatabaseProductName());
                if (dialect == Dialect.SQLITE) {
                    // Readers never block the writer and the other way round; kept by the database file.
                    try (Statement s = first.createStatement()) {
                        s.execute("PRAGMA journal_mode=WAL");
                    }
                }
                if (b.createTable) {
                    try (Statement s = first.createStatement()) {
                        for (String statement : dialect.ddl(table)) {
                            s.execute(statement);
                        }
                    }
                }
                TableShape.check(first, table, dialect);
                checkTokenCounter(first);
            }
        } catch (SQLException | RuntimeException e) {
            if (ownedPool != null) {
                ownedPool.close();
            }
            if (e instanceof IdempotencyStoreException ise) {
                throw ise;
            }
            String message = "jdbc store: cannot start over table " + table + ": " + e.getMessage();
            throw isConnectionLost(e) ? new IdempotencyStoreUnreachableException(message, e)
                    : new IdempotencyStoreException(message, e);
        }
        this.now = "(" + dialect.nowMillis + " + ?)";
        String nextToken = dialect.nextToken(table).orElse(null);
        boolean postgresql = dialect == Dialect.POSTGRESQL;
        this.claimReadingFirst = postgresql ? PostgresqlClaimStatements.readingFirst(table, now, nextToken) : null;
        this.claimInsertingFirst = postgresql ? PostgresqlClaimStatements.insertingFirst(table, now, nextToken) : null;
        this.claimPaths = new ClaimPaths(b.claimStart);
        this.takeover = postgresql ? PostgresqlClaimStatements.takeover(table, nextToken) : null;
        this.claimLocking = postgresql ? PostgresqlClaimStatements.locking(table, nextToken) : null;
        this.readWithToken = dialect != Dialect.POSTGRESQL && nextToken != null
                ? readDrawingATokenIfClaimable(table, now, nextToken) : null;
        this.complete = finishing(table, now, RecordState.COMPLETED);
        this.fail = finishing(table, now, RecordState.FAILED);
        this.sweepBatchSize = b.sweepBatchSize;
        this.transactionalClaims = new JdbcTransactionalClaims(this, dataSource);
        // Before the sweeper, whose thread starts at once and goes through the circuit.
        this.circuit = new StoreCircuit("jdbc store", KeyScopes::describe, this::probe);
        this.sweeper = b.sweepInterval == null ? null
                : new ExpiredRowSweeper(table, b.sweepInterval, sweepBatchSize, this::deleteExpiredBatch);
    }

    /** The circuit's probe: one connection, borrowed, checked and given back, within the pool's connection timeout. */
    private void probe() {
        try (Connection c = dataSource.getConnection()) {
            if (!c.isValid((int) Math.max(1, CONNECTION_TIMEOUT_MILLIS / 1000))) {
                throw new IdempotencyStoreUnreachableException("jdbc store: still unreachable: the database gave a"
                        + " connection that does not answer", null);
            }
        } catch (SQLException e) {
            throw new IdempotencyStoreUnreachableException("jdbc store: still unreachable: " + e.getMessage(), e);
        }
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
        return run("claim", request.key(), c -> {
            try {
                return claimOn(c, request, false);
            } catch (SQLException e) {
                if (JdbcClaimTransaction.LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
                    return heldByATransaction(c, request);
                }
                throw e;
            }
        });
    }

    /** The owner of {@link #heldByATransaction}'s stand-in record. */
    static final String HELD_BY_A_TRANSACTION = "a transaction on the store's database that holds the key's row";

    /**
     * What a claim answers when it gave up waiting on another transaction's hold of the key's row or lock (past
     * {@link ClaimRequest#lockWait()}). When the key's record is committed by then and not claimable, that record,
     * as the claim would have met it had it run now: the losers of a race for a new key each take the key's lock in
     * turn, so under load a loser's wait can pass behind the other losers while the winner's row is long committed.
     * Otherwise (on PostgreSQL, a transactional claim's uncommitted insert or lock), the key in progress, as a
     * stand-in for the record that transaction has not committed ({@link ClaimOutcome.Existing}), so the caller
     * waits or gives up as for an execution elsewhere. The failed statement changed nothing; the read waits on
     * nothing.
     */
    private ClaimOutcome.Existing heldByATransaction(Connection c, ClaimRequest request) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + ", " + now + " AS now_ms FROM "
                + table + " WHERE key_hash = ?")) {
            ps.setLong(1, offsetMillis.getAsLong());
            ps.setBytes(2, hash(request.key()));
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    StoredRow row = StoredRow.read(rs);
                    Instant nowAt = Instant.ofEpochMilli(row.nowMillis());
                    IdempotencyRecord live = row.liveAt(nowAt);
                    if (live != null && !live.isClaimableAt(nowAt, request.window())) {
                        return new ClaimOutcome.Existing(live, nowAt);
                    }
                }
            }
        }
        Instant nowAt;
        try (PreparedStatement ps = c.prepareStatement("SELECT " + now)) {
            ps.setLong(1, offsetMillis.getAsLong());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                nowAt = Instant.ofEpochMilli(rs.getLong(1));
            }
        }
        return new ClaimOutcome.Existing(new IdempotencyRecord(request.key(), RecordState.IN_PROGRESS,
                request.payloadHash(), HELD_BY_A_TRANSACTION, 0, nowAt, nowAt, null, null, null), nowAt);
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
        byte[] hash = hash(request.key());
        long lease = request.lease().toMillis();
        long window = request.window().toMillis();
        if (dialect == Dialect.POSTGRESQL && !lockRow) {
            boolean insertFirst = claimPaths.insertFirst();
            if (insertFirst) {
                long token = insertFirst(c, hash, request, lease);
                claimPaths.found(token != NOT_INSERTED);
                if (token != NOT_INSERTED) {
                    return new ClaimOutcome.Acquired(token, null);
                }
            }
            for (int attempt = 0; ; attempt++) {
                Optional<ClaimOutcome> outcome = claimReadingFirst(c, hash, request, lease, window,
                        !insertFirst && attempt == 0);
                if (outcome.isPresent()) {
                    return outcome.get();
                }
                if (attempt > 1_000) {
                    throw new SQLException("the claim lost 1,000 times in a row to concurrent writes");
                }
                // a concurrent claim wrote the key's row after this statement read it: read it again
            }
        }
        for (int attempt = 0; ; attempt++) {
            if (dialect == Dialect.POSTGRESQL) {
                Optional<ClaimOutcome> outcome = claimLockingTheRow(c, hash, request, lease, window);
                if (outcome.isPresent()) {
                    return outcome.get();
                }
                if (attempt > 1_000) {
                    throw new SQLException("the claim lost 1,000 times in a row to concurrent writes");
                }
                continue; // a concurrent claim wrote the key's row after this statement read it: read it again
            }
            // Elsewhere, optimistically: read the key's row with the database's now and, when the row is absent or
            // its record claimable, the next fencing token (one round trip, which for a replay writes nothing; on
            // SQLite the token is drawn by a statement of its own when the claim writes);
            // when there is no row, one INSERT that does nothing if a concurrent claim inserted it; when its
            // record is claimable, one UPDATE guarded by the version read (token, state, lease). Claimability
            // only grows with time for one version, so a guarded write that applies is a claim at that version.
            // A write that does not apply lost to a concurrent write, and the claim reads again. The token was
            // drawn after the version the write replaces (or the deletion of the key's row) was committed, so it
            // is larger than any token the key had.
            Optional<ClaimOutcome> outcome;
            try {
                outcome = claimOptimistically(c, hash, request, lease, window);
            } catch (SQLException e) {
                if (!isDeadlock(e) || !c.getAutoCommit()) {
                    throw e;
                }
                // A statement chosen as a deadlock's victim (MariaDB, against the sweeper's row locks) was rolled
                // back whole, and each statement stands alone: the claim reads again.
                outcome = Optional.empty();
            }
            if (outcome.isPresent()) {
                return outcome.get();
            }
            if (attempt > 1_000) {
                throw new SQLException("the claim lost 1,000 times in a row to concurrent writes");
            }
        }
    }

    private Optional<ClaimOutcome> claimOptimistically(Connection c, byte[] hash, ClaimRequest request, long lease,
                                                       long window) throws SQLException {
        StoredRow row;
        @Nullable Long token = null;
        Optional<String> nextToken = dialect.nextToken(table);
        try (PreparedStatement ps = c.prepareStatement(nextToken.isPresent() ? readWithToken
                : "SELECT " + COLUMNS + ", " + now + " AS now_ms FROM " + table + " WHERE key_hash = ?")) {
            int i = 0;
            if (nextToken.isPresent()) {
                ps.setLong(++i, window);
                ps.setLong(++i, window);
            }
            ps.setLong(++i, offsetMillis.getAsLong());
            ps.setBytes(++i, hash);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    row = null;
                } else {
                    if (nextToken.isPresent()) {
                        long drawn = rs.getLong("next_token");
                        token = rs.wasNull() ? null : drawn;
                    }
                    row = rs.getString("state") == null ? null : StoredRow.read(rs);
                }
            }
        }
        if (row == null) {
            if (dialect == Dialect.SQLITE) {
                return drawAndInsertInOneWrite(c, hash, request, lease);
            }
            long fresh = token != null ? token : drawToken(c);
            return insertFresh(c, hash, request, lease, fresh)
                    ? Optional.of(new ClaimOutcome.Acquired(fresh, null)) : Optional.empty();
        }
        Instant nowAt = Instant.ofEpochMilli(row.nowMillis());
        IdempotencyRecord live = row.liveAt(nowAt);
        if (live != null && !live.isClaimableAt(nowAt, Duration.ofMillis(window))) {
            return Optional.of(new ClaimOutcome.Existing(live, nowAt));
        }
        boolean takeover = live != null && live.state() == RecordState.IN_PROGRESS;
        if (token == null) {
            token = drawToken(c); // SQLite; or where the read's hint of claimability and Java's disagreed
        }
        long offset = offsetMillis.getAsLong();
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET state = 'IN_PROGRESS',"
                + " idem_key = ?, payload_hash = ?, owner = ?, fencing_token = ?, started_at = "
                + (takeover ? "?" : now) + ", lease_until = " + now + " + ?,"
                + " completed_at = NULL, expires_at = NULL, result = NULL"
                + " WHERE key_hash = ? AND fencing_token = ? AND state = ? AND lease_until = ?")) {
            int i = 0;
            ps.setString(++i, request.key());
            ps.setString(++i, request.payloadHash());
            ps.setString(++i, request.owner());
            ps.setLong(++i, token);
            ps.setLong(++i, takeover ? live.startedAt().toEpochMilli() : offset);
            ps.setLong(++i, offset);
            ps.setLong(++i, lease);
            ps.setBytes(++i, hash);
            ps.setLong(++i, row.token());
            ps.setString(++i, row.state());
            ps.setLong(++i, row.leaseUntil());
            if (ps.executeUpdate() != 1) {
                return Optional.empty();
            }
        }
        return Optional.of(new ClaimOutcome.Acquired(token, live, nowAt));
    }

    /**
     * PostgreSQL outside the transactional mode: one statement that reads the key's row and, only when there is none,
     * inserts it (doing nothing if a concurrent claim inserted it meanwhile). A fresh key and a record the claim cannot
     * take (a replay, a caller of an execution in progress) are thus answered in one round trip, and the latter is a
     * plain read: the row is read as of the statement's snapshot without a lock, so no transaction id, no commit record
     * to flush, and no wait on a transaction that holds the row.
     *
     * <p>A row whose record is claimable (released, deleted, expired, or an in-progress record whose lease passed) is
     * rarer, and taken over by a second statement, {@link #takeover}: an {@code UPDATE} that applies only while the row
     * is still the version read (token, state, lease). It locks the row first and, when a concurrent write changed
     * it first, re-checks that guard on the latest version, which fails, so nothing is written and the claim reads
     * again; it reads the clock for the lease once it holds the lock. Claimability only grows with time for one
     * version, so an update that applies is a claim at that version.
     * Keeping the takeover out of the common statement keeps that statement small: PostgreSQL starts every node of a
     * statement's plan on each execution, whether or not it writes.
     */
    private Optional<ClaimOutcome> claimReadingFirst(Connection c, byte[] hash, ClaimRequest request, long lease,
                                                     long window, boolean tellClaimPaths) throws SQLException {
        StoredRow row;
        try (PreparedStatement ps = c.prepareStatement(claimReadingFirst)) {
            long offset = offsetMillis.getAsLong();
            int i = PostgresqlClaimStatements.bindLockWait(ps, 0, request);
            ps.setBytes(++i, hash);
            ps.setLong(++i, PostgresqlClaimStatements.keyLock(hash));
            ps.setBytes(++i, hash);
            i = PostgresqlClaimStatements.bindClaimedRecord(ps, i, request, offset, lease);
            ps.setLong(++i, offset);
            try (ResultSet rs = ps.executeQuery()) {
                boolean found = rs.next();
                long inserted = found ? rs.getLong("inserted") : 0;
                boolean absent = found && !rs.wasNull();
                if (tellClaimPaths) {
                    claimPaths.found(absent);
                }
                if (!found) {
                    return Optional.empty(); // no row as read, and a concurrent claim inserted it first
                }
                if (absent) {
                    return Optional.of(new ClaimOutcome.Acquired(inserted, null));
                }
                row = StoredRow.read(rs);
            }
        }
        Instant nowAt = Instant.ofEpochMilli(row.nowMillis());
        IdempotencyRecord live = row.liveAt(nowAt);
        if (live != null && !live.isClaimableAt(nowAt, Duration.ofMillis(window))) {
            return Optional.of(new ClaimOutcome.Existing(live, nowAt));
        }
        try (PreparedStatement ps = c.prepareStatement(takeover)) {
            long offset = offsetMillis.getAsLong();
            int i = PostgresqlClaimStatements.bindLockWait(ps, 0, request);
            ps.setBytes(++i, hash);
            ps.setLong(++i, row.token());
            ps.setString(++i, row.state());
            ps.setLong(++i, row.leaseUntil());
            PostgresqlClaimStatements.bindClaimedRecord(ps, i, request, offset, lease);
            try (ResultSet rs = ps.executeQuery()) {
                // The store's time is the takeover's, which stamped the lease, not the read's before it.
                return rs.next() ? Optional.of(new ClaimOutcome.Acquired(rs.getLong(1), live,
                        Instant.ofEpochMilli(rs.getLong(2) + offset)))
                        : Optional.empty(); // a concurrent write changed the row first: read it again
            }
        }
    }

    /**
     * PostgreSQL in the transactional mode: the whole claim in one statement, {@code old} reading the key's row
     * {@code FOR UPDATE} whatever its record, so a concurrent transactional caller of the key waits on the row until
     * this transaction ends, and then sees what it committed; {@code ins} inserting the row when there was none (doing
     * nothing if a concurrent claim inserted it meanwhile), {@code upd} taking it over when its record is claimable at
     * the database's now. The row as read comes back with the outcome, for {@link ClaimOutcome.Existing} or
     * {@link ClaimOutcome.Acquired#replaced()}.
     */
    private Optional<ClaimOutcome> claimLockingTheRow(Connection c, byte[] hash, ClaimRequest request, long lease,
                                                      long window) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(claimLocking)) {
            int i = 0;
            ps.setBytes(++i, hash);
            ps.setLong(++i, offsetMillis.getAsLong());
            ps.setLong(++i, PostgresqlClaimStatements.keyLock(hash));
            ps.setBytes(++i, hash);
            ps.setString(++i, request.key());
            ps.setString(++i, request.payloadHash());
            ps.setString(++i, request.owner());
            ps.setLong(++i, lease);
            ps.setString(++i, request.key());
            ps.setString(++i, request.payloadHash());
            ps.setString(++i, request.owner());
            ps.setLong(++i, lease);
            ps.setBytes(++i, hash);
            ps.setLong(++i, window);
            ps.setLong(++i, window);
            return outcomeOfLockingStatement(ps);
        }
    }

    /**
     * MariaDB and H2: the optimistic claim's read of the key's row, with the database's now and, only when the row is
     * absent or its record claimable, the next fencing token. A replay or a caller of a running execution thus draws
     * no token (a sequence write, now and then flushed). The token is drawn as the row read is returned, after the
     * read's snapshot, so it is larger than the token of any version the read can see. The claimability here is only
     * a hint: the claim decides in Java, and draws a token by a statement of its own if this one drew none.
     * Parameters: the window twice (typed by the column it is added to, which H2 needs), the time offset, the key hash.
     */
    private static String readDrawingATokenIfClaimable(String table, String now, String nextToken) {
        return "SELECT " + ROW_COLUMNS + ", n.now_ms, CASE WHEN r.key_hash IS NULL OR r.state = '" + ABSENT + "'"
                + " OR (r.state = 'IN_PROGRESS' AND n.now_ms >= r.lease_until)"
                + " OR (r.state <> 'IN_PROGRESS' AND (n.now_ms >= r.expires_at"
                + " OR (r.started_at + ? > r.started_at AND n.now_ms >= r.started_at + ?)))"
                + " THEN " + nextToken + " END AS next_token"
                + " FROM (SELECT " + now + " AS now_ms) n LEFT JOIN " + table + " r ON r.key_hash = ?";
    }

    /**
     * PostgreSQL's claim of a key expected to be new ({@link ClaimPaths}): inserts the key's row unless it has one, and
     * returns the token drawn for it, or {@link #NOT_INSERTED} when the key has a row (as committed, or as written by a
     * transaction this statement waited on), which {@link #claimReadingFirst} then reads. Writes nothing when the key
     * has a row: the conflict is found before any tuple is written.
     */
    private long insertFirst(Connection c, byte[] hash, ClaimRequest request, long lease) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(claimInsertingFirst)) {
            int i = PostgresqlClaimStatements.bindLockWait(ps, 0, request);
            ps.setLong(++i, PostgresqlClaimStatements.keyLock(hash));
            ps.setBytes(++i, hash);
            PostgresqlClaimStatements.bindClaimedRecord(ps, i, request, offsetMillis.getAsLong(), lease);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : NOT_INSERTED;
            }
        }
    }

    /** What {@link #insertFirst} returns when the key has a row: no token is negative. */
    private static final long NOT_INSERTED = -1;

    /**
     * The outcome of the transactional mode's claim statement, or empty when its insert met a row a concurrent claim
     * inserted and it must run again.
     */
    private static Optional<ClaimOutcome> outcomeOfLockingStatement(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                throw new SQLException("the claim statement returned no row");
            }
            long inserted = rs.getLong("inserted");
            if (!rs.wasNull()) {
                return Optional.of(new ClaimOutcome.Acquired(inserted, null));
            }
            if (rs.getString("state") == null) {
                return Optional.empty();
            }
            StoredRow row = StoredRow.read(rs);
            Instant nowAt = Instant.ofEpochMilli(row.nowMillis());
            IdempotencyRecord live = row.liveAt(nowAt);
            long updated = rs.getLong("updated");
            if (!rs.wasNull()) {
                return Optional.of(new ClaimOutcome.Acquired(updated, live, nowAt));
            }
            if (live == null) {
                throw new SQLException("the key's row is claimable but was not claimed");
            }
            return Optional.of(new ClaimOutcome.Existing(live, nowAt));
        }
    }

    /** The next fencing token, drawn by a statement of its own (SQLite: its one-row counter table). */
    private long drawToken(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(dialect.drawToken(table)); ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
                throw new SQLException("the token counter " + Dialect.tokens(table) + " has no row");
            }
            return rs.getLong(1);
        }
    }

    /**
     * SQLite: draws the token and inserts the key's row in one write transaction. SQLite runs one writer at a time, so
     * no other write (another claim of the key, the sweeper's deletion of its row) comes between the draw and the
     * insert: a token drawn by a statement of its own before the insert could be below one a claim that held and
     * released the key meanwhile was given, once the sweeper had deleted that claim's row. On a connection already in
     * a transaction (not the store's own), that transaction keeps the write lock from the draw to its end.
     */
    private Optional<ClaimOutcome> drawAndInsertInOneWrite(Connection c, byte[] hash, ClaimRequest request, long lease)
            throws SQLException {
        if (!c.getAutoCommit()) {
            long token = drawToken(c);
            return insertFresh(c, hash, request, lease, token)
                    ? Optional.of(new ClaimOutcome.Acquired(token, null)) : Optional.empty();
        }
        try (Statement s = c.createStatement()) {
            s.execute("BEGIN IMMEDIATE");
            boolean inserted;
            long token;
            try {
                token = drawToken(c);
                inserted = insertFresh(c, hash, request, lease, token);
            } catch (SQLException | RuntimeException e) {
                try {
                    s.execute("ROLLBACK");
                } catch (SQLException rollback) {
                    e.addSuppressed(rollback);
                }
                throw e;
            }
            s.execute("COMMIT");
            return inserted ? Optional.of(new ClaimOutcome.Acquired(token, null)) : Optional.empty();
        }
    }

    private boolean insertFresh(Connection c, byte[] hash, ClaimRequest request, long lease, long token)
            throws SQLException {
        String sql = dialect.insertIfAbsent(table,
                "key_hash, idem_key, state, payload_hash, owner, fencing_token, started_at, lease_until",
                "?, ?, 'IN_PROGRESS', ?, ?, ?, " + now + ", " + now + " + ?");
        long offset = offsetMillis.getAsLong();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setBytes(1, hash);
            ps.setString(2, request.key());
            ps.setString(3, request.payloadHash());
            ps.setString(4, request.owner());
            ps.setLong(5, token);
            ps.setLong(6, offset);
            ps.setLong(7, offset);
            ps.setLong(8, lease);
            return ps.executeUpdate() == 1;
        } catch (SQLException e) {
            if (isDuplicateKey(e)) {
                return false;
            }
            throw e;
        }
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
        // The ttl and its jitter in whole milliseconds: the expiry counted from the epoch, added to the database's now.
        long keptMillis = TtlJitter.expiresAt(Instant.EPOCH, ttl).toEpochMilli();
        try (PreparedStatement ps = c.prepareStatement(state == RecordState.COMPLETED ? complete : fail)) {
            long offset = offsetMillis.getAsLong();
            ps.setLong(1, offset);
            ps.setLong(2, offset);
            ps.setLong(3, keptMillis);
            ps.setBytes(4, encoded);
            ps.setBytes(5, hash(key));
            ps.setLong(6, fencingToken);
            return ps.executeUpdate() == 1;
        }
    }

    /**
     * The update finishing a claim in {@code state}. Parameters: the time offset twice, the time to live, the encoded
     * result, the key hash, the fencing token.
     */
    private static String finishing(String table, String now, RecordState state) {
        return "UPDATE " + table + " SET state = '" + state.name() + "', completed_at = " + now + ", expires_at = "
                + now + " + ?, result = ? WHERE key_hash = ? AND fencing_token = ? AND state = 'IN_PROGRESS'";
    }

    @Override
    public boolean release(String key, long fencingToken) {
        Objects.requireNonNull(key, "key");
        // An absent record's expires_at is when it was released or deleted, from which the sweeper counts its margin.
        return update("release", key, "UPDATE " + table + " SET state = '" + ABSENT + "', completed_at = NULL,"
                + " expires_at = " + now + ", result = NULL"
                + " WHERE key_hash = ? AND fencing_token = ? AND state = 'IN_PROGRESS'",
                (ps, offset) -> {
                    ps.setLong(1, offset);
                    ps.setBytes(2, hash(key));
                    ps.setLong(3, fencingToken);
                });
    }

    @Override
    public boolean renew(String key, long fencingToken, Duration lease) {
        Objects.requireNonNull(key, "key");
        long leaseMillis = lease.toMillis();
        return update("renew", key, "UPDATE " + table + " SET lease_until = " + now + " + ?"
                + " WHERE key_hash = ? AND fencing_token = ? AND state = 'IN_PROGRESS'", (ps, offset) -> {
            ps.setLong(1, offset);
            ps.setLong(2, leaseMillis);
            ps.setBytes(3, hash(key));
            ps.setLong(4, fencingToken);
        });
    }

    @Override
    public Optional<IdempotencyRecord> get(String key) {
        Objects.requireNonNull(key, "key");
        return run("get", key, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + COLUMNS + ", " + now + " AS now_ms FROM "
                    + table + " WHERE key_hash = ?")) {
                ps.setLong(1, offsetMillis.getAsLong());
                ps.setBytes(2, hash(key));
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.empty();
                    }
                    StoredRow row = StoredRow.read(rs);
                    return Optional.ofNullable(row.liveAt(Instant.ofEpochMilli(row.nowMillis())));
                }
            }
        });
    }

    @Override
    public void delete(String key) {
        Objects.requireNonNull(key, "key");
        update("delete", key, "UPDATE " + table + " SET state = '" + ABSENT + "', completed_at = NULL,"
                + " expires_at = " + now + ", result = NULL WHERE key_hash = ?", (ps, offset) -> {
                    ps.setLong(1, offset);
                    ps.setBytes(2, hash(key));
                });
    }

    /**
     * Deletes at most one batch of expired rows (see {@link Builder#sweepInterval}), each checked again as it is
     * deleted, so a row claimed meanwhile stays.
     *
     * @return how many rows were deleted
     */
    int deleteExpiredBatch() {
        // A released or deleted record's row from when that happened (no time: released before the store kept one).
        String condition = "((state = 'IN_PROGRESS' AND lease_until + ? <= " + now + ")"
                + " OR (state <> 'IN_PROGRESS' AND (expires_at IS NULL OR expires_at + ? <= " + now + ")))";
        String sql = dialect.deleteBatch(table, condition);
        int conditions = dialect.deleteBatchConditions();
        long margin = dialect.sweepsAfterAMargin ? SWEEP_MARGIN.toMillis() : 0;
        return run("sweep", "", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                int i = 0;
                for (int k = 0; k < conditions; k++) {
                    long offset = offsetMillis.getAsLong();
                    ps.setLong(++i, ABANDONED_GRACE.toMillis());
                    ps.setLong(++i, offset);
                    ps.setLong(++i, margin);
                    ps.setLong(++i, offset);
                }
                ps.setInt(++i, sweepBatchSize);
                return ps.executeUpdate();
            }
        });
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

    /** Refuses work once the store is closed. */
    void requireOpen(String operation, String key) {
        if (closed) {
            throw new IdempotencyStoreException("jdbc store: " + operation + " of " + KeyScopes.describe(key)
                    + " refused: the store is closed");
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (sweeper != null) {
            sweeper.close(); // first, so no sweep meets a closed store
        }
        closed = true;
        circuit.close();
        if (ownedPool != null) {
            ownedPool.close();
        }
    }

    /** The store's now: the database's, plus the test offset. */
    Instant serverNow() {
        return run("read the time", "", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + now)) {
                ps.setLong(1, offsetMillis.getAsLong());
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return Instant.ofEpochMilli(rs.getLong(1));
                }
            }
        });
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Plumbing

    @FunctionalInterface
    private interface Work<T> {
        T apply(Connection c) throws SQLException;
    }

    @FunctionalInterface
    private interface Binder {
        void bind(PreparedStatement ps, long offset) throws SQLException;
    }

    private boolean update(String operation, String key, String sql, Binder binder) {
        return run(operation, key, c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                binder.bind(ps, offsetMillis.getAsLong());
                return ps.executeUpdate() == 1;
            }
        });
    }

    /**
     * Runs one operation on a borrowed connection. A lost connection fails the operation (closed) and the next call
     * reconnects: the pool retires the connection that failed, and when the store owns the pool the connections idle
     * beside it are retired too, since what drops one connection (a server restart, a failover, a network cut) has
     * almost always dropped them all, and the pool would otherwise hand them out, one failed call each.
     *
     * <p>When no connection can be had because the database is unreachable, the {@link StoreCircuit} opens: every
     * operation after it is refused at once, and the database is probed with one connection at a time in the
     * background until it answers. A statement that fails on a connection that broke does not open it (the next
     * connection may well work).
     */
    @SuppressWarnings("try") // the scope is held for its effect: auto-commit mode, put back as it came
    private <T> T run(String operation, String key, Work<T> work) {
        requireOpen(operation, key);
        Connection c = connection(operation, key);
        try (c; AutoCommitScope own = AutoCommitScope.on(requireOwn(c, operation, key))) { // each statement alone
            return work.apply(c);
        } catch (SQLException | RuntimeException e) {
            if (ownedPool != null && isConnectionLost(e)) {
                ownedPool.getHikariPoolMXBean().softEvictConnections();
            }
            throw failure(operation, key, e);
        }
    }

    /**
     * Returns {@code c}, a connection the data source handed out, unless it may hold a transaction that is not the
     * store's: one in manual-commit mode, unless the builder declared that the data source's connections start so
     * ({@link Builder#manualCommitConnections}). A transaction-aware data source (Spring's
     * {@code TransactionAwareDataSourceProxy}) hands out the application's transaction in manual-commit mode;
     * switching it to auto-commit mode, or committing it, would commit the application's work half-way and break its
     * transaction, so the store refuses it, changing nothing. The caller closes {@code c} (its handle only: a
     * transaction-aware data source's close leaves the transaction open).
     *
     * @throws IdempotencyStoreException naming the operation and the key's scope, and what to do instead
     */
    Connection requireOwn(Connection c, String operation, String key) throws SQLException {
        if (manualCommitConnections || c.getAutoCommit()) {
            return c;
        }
        String scope = KeyScopes.describe(key);
        throw new IdempotencyStoreException("jdbc store: " + operation + " of " + scope + " refused: the"
                + " data source handed out a connection with auto-commit off, which holds a transaction that is not"
                + " the store's (a transaction-aware data source such as Spring's TransactionAwareDataSourceProxy"
                + " hands out the application's transaction so). The store never commits or changes a connection"
                + " that may hold someone's transaction: give it a data source of its own connections (the pool"
                + " itself, or idem.jdbc.url); for a pool whose idle connections start in manual-commit mode, say so"
                + " with JdbcIdempotencyStore.Builder.manualCommitConnections(); to claim inside the application's"
                + " transaction, declare storeTransaction and bind that transaction with JdbcTransactions.join");
    }

    /**
     * A connection of the data source for one operation (or one transaction of the store's own), unless the circuit
     * is open; one that cannot be had for an outage opens it.
     */
    Connection connection(String operation, String key) {
        circuit.admit(operation, key);
        try {
            return dataSource.getConnection();
        } catch (SQLException | RuntimeException e) {
            if (!isConnectionLost(e) && !ownPoolCouldNotConnect(e)) {
                throw failure(operation, key, e);
            }
            circuit.open(e);
            throw new IdempotencyStoreUnreachableException("jdbc store: " + operation + " of " + KeyScopes.describe(key)
                    + " failed on table " + table + ": no connection to the database: " + e.getMessage(), e);
        }
    }

    /**
     * Whether the store's own pool gave up waiting for a connection although it had room to open one: it could not
     * (a silent database fails no attempt before the wait ends, so the pool's error may carry no cause). A pool that
     * is full of busy connections is not unreachable, only busy.
     */
    private boolean ownPoolCouldNotConnect(Throwable e) {
        return ownedPool != null && e instanceof SQLTransientConnectionException
                && ownedPool.getHikariPoolMXBean() != null
                && ownedPool.getHikariPoolMXBean().getActiveConnections() < ownedPool.getMaximumPoolSize();
    }

    /** An error of the connection rather than of the statement: SQLSTATE class 08, or the server shutting down. */
    static boolean isConnectionLost(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getSQLState() != null
                    && (sql.getSQLState().startsWith("08") || sql.getSQLState().startsWith("57P"))) {
                return true;
            }
        }
        return false;
    }

    /** What an operation that failed on the database throws: it names the operation and the key's scope. */
    IdempotencyStoreException failure(String operation, String key, Exception e) {
        if (e instanceof IdempotencyStoreException ise) {
            return ise;
        }
        String message = "jdbc store: " + operation + " of " + KeyScopes.describe(key) + " failed on table " + table
                + ": " + e.getMessage();
        return isConnectionLost(e) ? new IdempotencyStoreUnreachableException(message, e)
                : new IdempotencyStoreException(message, e);
    }

    /** A statement rolled back as a deadlock's victim: SQLSTATE 40001 (MariaDB's ER_LOCK_DEADLOCK, H2's). */
    private static boolean isDeadlock(SQLException e) {
        return "40001".equals(e.getSQLState()) || e.getErrorCode() == 1213;
    }

    /** A unique violation of the key's row (a concurrent first claim), and no other constraint's. */
    private static boolean isDuplicateKey(SQLException e) {
        String state = e.getSQLState();
        return "23505".equals(state) // PostgreSQL, H2
                || e.getErrorCode() == 1062 // MariaDB, MySQL: ER_DUP_ENTRY
                || e.getErrorCode() == 1555 || e.getErrorCode() == 2067; // SQLite: primary key, unique
    }

    /**
     * The key's row identity: {@link KeyHasher}'s SHA-256 of its UTF-8 bytes. Never modified by its callers, which only
     * bind it: the same array may be handed out again for the same key.
     */
    static byte[] hash(String key) {
        return HASHER.get().hash(key);
    }

    /**
     * Hashes keys on one thread with a {@link KeyHasher} of its own, and remembers the last key and its hash: a fresh
     * call's claim and its completion, which run on the same thread one after the other, hash the key once.
     */
    private static final class LastKeyHash {
        private final KeyHasher hasher = new KeyHasher();
        @Nullable
        private String lastKey;
        private byte[] lastHash = new byte[0];

        byte[] hash(String key) {
            if (!key.equals(lastKey)) {
                lastHash = hasher.hash(key);
                lastKey = key;
            }
            return lastHash;
        }
    }

    /** Checks at start that the table's fencing-token counter is there and works, drawing one token. */
    private void checkTokenCounter(Connection c) {
        try {
            drawToken(c); // a token drawn and never used: tokens are increasing, not consecutive
        } catch (SQLException e) {
            throw new IdempotencyStoreException("jdbc store: the fencing-token counter " + Dialect.tokens(table)
                    + " of table " + table + " is missing or unusable (" + e.getMessage() + "); create it with the"
                    + " DDL in the README (or the resource " + TableShape.ddlResource(dialect) + "), or set"
                    + " idem.jdbc.createTable=true", e);
        }
    }
}
