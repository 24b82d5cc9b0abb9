package dev.idem.store.jdbc;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.store.DurationGrammar;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.IdempotencyStoreProvider;

import javax.sql.DataSource;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Makes the JDBC store known as {@code jdbc}. Keys: {@code idem.jdbc.url} (required), {@code idem.jdbc.user},
 * {@code idem.jdbc.password}, {@code idem.jdbc.table} [{@value JdbcIdempotencyStore#DEFAULT_TABLE}],
 * {@code idem.jdbc.createTable} [false], {@code idem.jdbc.sweepInterval} [off: a duration of {@link DurationGrammar}
 * such as {@code 5m} turns the sweeper of expired rows on, see {@link JdbcIdempotencyStore.Builder#sweepInterval}].
 * The store opens its own small HikariCP pool to the URL; the database's JDBC driver must be on the class path. The
 * engine's clock is not used: time is the database's. An application that has a pool already gives the store that
 * one with the same settings but the pool's: {@link #builder(DataSource, Map)}.
 */
public final class JdbcStoreProvider implements IdempotencyStoreProvider {
    static final String URL = "url";
    static final String USER = "user";
    static final String PASSWORD = "password";
    static final String TABLE = "table";
    static final String CREATE_TABLE = "createTable";
    static final String SWEEP_INTERVAL = "sweepInterval";
    private static final Set<String> KEYS = Set.of(URL, USER, PASSWORD, TABLE, CREATE_TABLE, SWEEP_INTERVAL);

    /** Creates the provider; {@link java.util.ServiceLoader} calls this. */
    public JdbcStoreProvider() {
    }

    @Override
    public String name() {
        return "jdbc";
    }

    /** {@return url, user, password, table, createTable and sweepInterval: what {@link #create} accepts} */
    @Override
    public Set<String> propertyNames() {
        return KEYS;
    }

    @Override
    public IdempotencyStore create(Map<String, String> properties, Clock clock) {
        requireKnownKeys(properties);
        String url = properties.get(URL);
        if (url == null || url.isBlank()) {
            throw new IdempotencyConfigurationException("the jdbc store needs idem.jdbc.url, such as"
                    + " jdbc:postgresql://db:5432/app");
        }
        JdbcIdempotencyStore.Builder builder = JdbcIdempotencyStore.builder(url.trim())
                .user(properties.get(USER))
                .password(properties.get(PASSWORD));
        return configure(builder, properties).build();
    }

    /**
     * A builder of the jdbc store over the application's {@code dataSource}, configured by the jdbc store's own
     * settings as {@link #create} reads them ({@code idem.jdbc.table}, {@code idem.jdbc.createTable},
     * {@code idem.jdbc.sweepInterval}), for an application that hands the store its pool instead of a URL.
     *
     * @param dataSource the application's data source, which its owner closes
     * @param properties the {@code idem.jdbc.*} settings without the {@code idem.jdbc.} prefix
     * @return the configured builder; the caller may set more before {@link JdbcIdempotencyStore.Builder#build()}
     * @throws IdempotencyConfigurationException for an unknown key, a bad value, or {@code url}, {@code user} or
     *                                           {@code password}, which only configure the store's own pool
     */
    public static JdbcIdempotencyStore.Builder builder(DataSource dataSource, Map<String, String> properties) {
        for (String poolKey : List.of(URL, USER, PASSWORD)) {
            if (properties.containsKey(poolKey)) {
                throw new IdempotencyConfigurationException("idem.jdbc." + poolKey + " configures a pool of the jdbc"
                        + " store's own, but the store is given the application's DataSource; remove it, or give"
                        + " idem.jdbc.url to keep the records in another database");
            }
        }
        requireKnownKeys(properties);
        return configure(JdbcIdempotencyStore.builder(dataSource), properties);
    }

    private static void requireKnownKeys(Map<String, String> properties) {
        for (String key : properties.keySet()) {
            if (!KEYS.contains(key)) {
                throw new IdempotencyConfigurationException("unknown configuration key idem.jdbc." + key
                        + "; the jdbc store knows idem.jdbc.url, idem.jdbc.user, idem.jdbc.password, idem.jdbc.table"
                        + ", idem.jdbc.createTable and idem.jdbc.sweepInterval");
            }
        }
    }

    /** Sets on {@code builder} the settings every jdbc store has, however it reaches its database. */
    private static JdbcIdempotencyStore.Builder configure(JdbcIdempotencyStore.Builder builder,
                                                          Map<String, String> properties) {
        String table = properties.get(TABLE);
        if (table != null) {
            builder.table(table.trim());
        }
        String create = properties.get(CREATE_TABLE);
        if (create != null) {
            String c = create.trim().toLowerCase(Locale.ROOT);
            if (!c.equals("true") && !c.equals("false")) {
                throw new IdempotencyConfigurationException("idem.jdbc.createTable = \"" + create
                        + "\" is neither true nor false");
            }
            builder.createTable(Boolean.parseBoolean(c));
        }
        String sweep = properties.get(SWEEP_INTERVAL);
        if (sweep != null && !sweep.trim().equalsIgnoreCase("off")) {
            builder.sweepInterval(sweepInterval(sweep));
        }
        return builder;
    }

    /**
     * The sweep interval {@code text} denotes, in the project's one grammar ({@link DurationGrammar}); the caller has
     * read {@code off} already.
     *
     * @throws IdempotencyConfigurationException naming the property, the text, the accepted forms and {@code off}
     */
    static Duration sweepInterval(String text) {
        return DurationGrammar.parseProperty("idem.jdbc." + SWEEP_INTERVAL, text, "off");
    }
}
