package dev.idem.store.redis;

import dev.idem.IdempotencyStoreException;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.RecordState;
import dev.idem.testsupport.RedisServerProcess;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import jakarta.annotation.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * ACL users and TLS against a server the test owns: its default user is off, and its one user may run only the
 * commands the store needs, on {@code idem:*} keys only. When {@code openssl} is on the PATH the test makes a CA and a
 * certificate for 127.0.0.1 and the server also listens with TLS; otherwise (or when the redis-server was built
 * without TLS) the TLS tests are skipped, saying why.
 */
class RedisAclAndTlsTest {
    private static final String USER = "idem-app";
    private static final String PASSWORD = "pw-" + UUID.randomUUID();
    /**
     * What the store runs: its scripts by EVALSHA (loaded by SCRIPT LOAD), the commands the scripts run (SPUBLISH on
     * the keys' channels among them), TIME, the wake-ups' sharded subscriptions, and the connection's handshake
     * (@connection: HELLO, AUTH, CLIENT SETINFO, PING).
     */
    static final String STORE_ACL = "~idem:* &idem:* +@connection +evalsha +script|load +time"
            + " +del +get +set +spublish +ssubscribe +sunsubscribe";
    private static RedisServerProcess server;
    private static int tlsPort;
    @Nullable
    private static String noTls;
    private static Path ca;

    @BeforeAll
    static void startServer() throws Exception {
        Path binary = RedisServerProcess.binaryOrSkip("the ACL and TLS tests are");
        int port = RedisServerProcess.freePort();
        List<String> acl = List.of("--user", "default", "off", "--user", USER, "on", ">" + PASSWORD, "resetchannels");
        List<String> options = new ArrayList<>(acl);
        options.addAll(List.of(STORE_ACL.split(" ")));
        Path dir = RedisServerProcess.dirFor("redis-acl-tls", port);
        noTls = certificates(dir);
        if (noTls == null) {
            tlsPort = RedisServerProcess.freePort();
            List<String> withTls = new ArrayList<>(options);
            withTls.addAll(List.of("--tls-port", Integer.toString(tlsPort),
                    "--tls-cert-file", dir.resolve("server.crt").toString(),
                    "--tls-key-file", dir.resolve("server.key").toString(),
                    "--tls-ca-cert-file", dir.resolve("ca.crt").toString(), "--tls-auth-clients", "no"));
            try {
                server = RedisServerProcess.start(binary, "redis-acl-tls", port, List.of(), withTls);
                return;
            } catch (IllegalStateException e) {
                noTls = "the redis-server did not start with TLS options (built without TLS?): " + e.getMessage();
            }
        }
        System.out.println("TLS tests skipped: " + noTls);
        server = RedisServerProcess.start(binary, "redis-acl-tls", port, List.of(), options);
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    /** Makes a CA and a certificate for 127.0.0.1 signed by it in {@code dir}; null, or why it could not. */
    @Nullable
    private static String certificates(Path dir) throws IOException, InterruptedException {
        ca = dir.resolve("ca.crt");
        Files.writeString(dir.resolve("san.cnf"), "subjectAltName=IP:127.0.0.1\n");
        String ec = "ec_paramgen_curve:prime256v1";
        List<List<String>> steps = List.of(
                List.of("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", ec, "-nodes", "-keyout", "ca.key",
                        "-out", "ca.crt", "-days", "2", "-subj", "/CN=idem-test-ca"),
                List.of("openssl", "req", "-newkey", "ec", "-pkeyopt", ec, "-nodes", "-keyout", "server.key",
                        "-out", "server.csr", "-subj", "/CN=127.0.0.1"),
                List.of("openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                        "-CAcreateserial", "-out", "server.crt", "-days", "2", "-extfile", "san.cnf"));
        for (List<String> step : steps) {
            Process p;
            try {
                p = new ProcessBuilder(step).directory(dir.toFile()).redirectErrorStream(true)
                        .redirectOutput(dir.resolve("openssl.log").toFile()).start();
            } catch (IOException e) {
                return "no openssl to make a certificate with: " + e.getMessage();
            }
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "openssl took more than 30 seconds";
            }
            if (p.exitValue() != 0) {
                return "openssl failed: " + Files.readString(dir.resolve("openssl.log"));
            }
        }
        return null;
    }

    private static String withUser(String scheme, String password, int port) {
        return scheme + "://" + USER + ":" + password + "@127.0.0.1:" + port;
    }

    private static void claimCompleteAndReplay(RedisIdempotencyStore store) {
        String key = "idem:acl-tls-test:scope:" + UUID.randomUUID();
        ClaimRequest request = new ClaimRequest(key, "h", "owner", Duration.ofSeconds(30), Duration.ZERO);
        long token = assertInstanceOf(ClaimOutcome.Acquired.class, store.claim(request)).fencingToken();
        assertTrue(store.complete(key, token, new byte[] {3}, Duration.ofMinutes(5)));
        ClaimOutcome.Existing replay = assertInstanceOf(ClaimOutcome.Existing.class, store.claim(request));
        assertEquals(RecordState.COMPLETED, replay.record().state());
        assertArrayEquals(new byte[] {3}, replay.record().result());
        assertFalse(store.renew(key, token, Duration.ofSeconds(30)), "a finished record is not renewed");
        store.delete(key);
        assertTrue(store.get(key).isEmpty());
    }

    @Test
    void anAclUserAllowedOnlyTheStoresCommandsOnIdemKeysCanClaimCompleteAndReplay() {
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(withUser("redis", PASSWORD, server.port()))
                .build()) {
            claimCompleteAndReplay(store);
        }
    }

    @Test
    void withoutTheUserOrWithAWrongPasswordTheStoreFailsAtStartWithoutShowingThePassword() {
        IdempotencyStoreException anonymous = assertThrows(IdempotencyStoreException.class,
                () -> RedisIdempotencyStore.builder(server.uri()).timeout(Duration.ofSeconds(1)).build());
        assertTrue(anonymous.getMessage().contains("cannot connect"), anonymous.getMessage());
        String wrong = "not-" + PASSWORD;
        IdempotencyStoreException refused = assertThrows(IdempotencyStoreException.class,
                () -> RedisIdempotencyStore.builder(withUser("redis", wrong, server.port()))
                        .timeout(Duration.ofSeconds(1)).build());
        assertFalse(refused.getMessage().contains(wrong), "the password stays out: " + refused.getMessage());
    }

    @Test
    void overTlsAClientTrustingTheServersCaConnectsAndVerifiesTheServer() {
        assumeTrue(noTls == null, () -> "TLS: " + noTls);
        RedisClient client = RedisClient.create(RedisURI.create(withUser("rediss", PASSWORD, tlsPort)));
        try {
            client.setOptions(ClientOptions.builder()
                    .sslOptions(SslOptions.builder().trustManager(ca.toFile()).build()).build());
            try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(client).build()) {
                claimCompleteAndReplay(store);
            }
        } finally {
            client.shutdown();
        }
    }

    @Test
    void aRedissUriVerifiesTheServerAgainstTheJvmsTrustStoreAndVerifyPeerNoneOnlyEncrypts() {
        assumeTrue(noTls == null, () -> "TLS: " + noTls);
        IdempotencyStoreException untrusted = assertThrows(IdempotencyStoreException.class,
                () -> RedisIdempotencyStore.builder(withUser("rediss", PASSWORD, tlsPort))
                        .timeout(Duration.ofSeconds(2)).build(),
                "a certificate from a CA the JVM does not trust is refused");
        assertFalse(untrusted.getMessage().contains(PASSWORD), untrusted.getMessage());
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(
                withUser("rediss", PASSWORD, tlsPort) + "?verifyPeer=NONE").build()) {
            claimCompleteAndReplay(store);
        }
    }
}
