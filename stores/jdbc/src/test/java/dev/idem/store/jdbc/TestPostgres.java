package dev.idem.store.jdbc;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The PostgreSQL of a test JVM: the server at {@code IDEM_TEST_POSTGRES_URL} when set (CI sets it), else one embedded
 * PostgreSQL under target/, started at the first use and stopped when the JVM exits.
 */
final class TestPostgres {
    private static String url;

    private TestPostgres() {
    }

    /** {@return the JDBC URL of the test PostgreSQL, user included} */
    static synchronized String url() {
        if (url == null) {
            String configured = System.getenv("IDEM_TEST_POSTGRES_URL");
            if (configured != null && !configured.isBlank()) {
                url = configured;
            } else {
                try {
                    Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
                    EmbeddedPostgres embedded = EmbeddedPostgres.builder().start();
                    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                        try {
                            embedded.close();
                        } catch (IOException e) {
                            e.printStackTrace();
                        }
                    }));
                    url = embedded.getJdbcUrl("postgres", "postgres");
                    System.out.println("IDEM_TEST_POSTGRES_URL is not set: tests run on an embedded PostgreSQL");
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        return url;
    }

    /** {@code url} tagged with an application name, so a test can find its connections in pg_stat_activity. */
    static String tagged(String url, String applicationName) {
        return url + (url.contains("?") ? "&" : "?") + "ApplicationName=" + applicationName;
    }
}
