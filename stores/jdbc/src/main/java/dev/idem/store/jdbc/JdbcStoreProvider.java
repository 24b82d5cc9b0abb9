package dev.idem.store.jdbc;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.IdempotencyStoreProvider;

import java.time.Clock;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Makes the JDBC store known as {@code jdbc}. Keys: {@code idem.jdbc.url} (required), {@code idem.jdbc.user},
 * {@code idem.jdbc.password}, {@code idem.jdbc.table} [{@value JdbcIdempotencyStore#DEFAULT_TABLE}],
 * {@code idem.jdbc.createTable} [false], {@code idem.jdbc.sweepInterval} [off: a duration such as {@code 5m} turns the
 * sweeper of expired rows on, see {@link JdbcIdempotencyStore.Builder#sweepInterval}]. The store opens its own small HikariCP pool to the URL; the database's
 * JDBC driver must be on the class path. The engine's clock is not used: time is the database's.
 */
public final class JdbcStoreProvider implements IdempotencyStoreProvider {
    static final String URL = "url";
    static final String USER = "user";
    static final String PASSWORD = "password";
    static final String TABLE = "table";
    static final String CREATE_TABLE = "createTable";
    static final String SWEEP_INTERVAL = "sweepInterval";
    private static final Set<String> KEYS = Set.of(URL, USER, PASSWORD, TABLE, CREATE_TABLE, SWEEP_INTERVAL);
    private static final Pattern SHORT_DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d)");

    /** Creates the provider; {@link java.util.ServiceLoader} calls this. */
    public JdbcStoreProvider() {
    }

    @Override
    public String name() {
        return "jdbc";
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
            builder.sweepInterval(duration(SWEEP_INTERVAL, sweep));
        }
        return builder.build();
    }

    /** A duration such as {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}, {@code 1d} or ISO-8601 {@code PT5M}. */
    private static Duration duration(String key, String text) {
        Matcher m = SHORT_DURATION.matcher(text.trim().toLowerCase(Locale.ROOT));
        try {
            if (m.matches()) {
                long n = Long.parseLong(m.group(1));
                return switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    case "h" -> Duration.ofHours(n);
                    default -> Duration.ofDays(n);
                };
            }
            return Duration.parse(text.trim());
        } catch (DateTimeParseException | NumberFormatException | ArithmeticException e) {
            throw new IdempotencyConfigurationException("idem.jdbc." + key + " = \"" + text + "\" is not a duration:"
                    + " write 500ms, 30s, 5m, 1h, 1d, PT5M or off", e);
        }
    }
}
