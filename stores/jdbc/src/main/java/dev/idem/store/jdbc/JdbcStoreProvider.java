package dev.idem.store.jdbc;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.store.DurationGrammar;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.IdempotencyStoreProvider;

import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Makes the JDBC store known as {@code jdbc}. Keys: {@code idem.jdbc.url} (required), {@code idem.jdbc.user},
 * {@code idem.jdbc.password}, {@code idem.jdbc.table} [{@value JdbcIdempotencyStore#DEFAULT_TABLE}],
 * {@code idem.jdbc.createTable} [false], {@code idem.jdbc.sweepInterval} [off: a duration of {@link DurationGrammar}
 * such as {@code 5m} turns the sweeper of expired rows on, see {@link JdbcIdempotencyStore.Builder#sweepInterval}].
 * The store opens its own small HikariCP pool to the URL; the database's JDBC driver must be on the class path. The
 * engine's clock is not used: time is the database's.
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
        for (String key : properties.keySet()) {
            if (!KEYS.contains(key)) {
                throw new IdempotencyConfigurationException("unknown configuration key idem.jdbc." + key
                        + "; the jdbc store knows idem.jdbc.url, idem.jdbc.user, idem.jdbc.password, idem.jdbc.table"
                        + ", idem.jdbc.createTable and idem.jdbc.sweepInterval");
            }
        }
        String url = properties.get(URL);
        if (url == null || url.isBlank()) {
            throw new IdempotencyConfigurationException("the jdbc store needs idem.jdbc.url, such as"
                    + " jdbc:postgresql://db:5432/app");
        }
        JdbcIdempotencyStore.Builder builder = JdbcIdempotencyStore.builder(url.trim())
                .user(properties.get(USER))
                .password(properties.get(PASSWORD));
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
        return builder.build();
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
