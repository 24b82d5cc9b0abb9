package dev.idem.maven;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static dev.idem.maven.SampleBuild.checkPlugin;
import static dev.idem.maven.SampleBuild.project;
import static dev.idem.maven.SampleBuild.run;
import static dev.idem.maven.SampleBuild.weavingPlugin;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A user's project built by a real Maven with the {@code idem:check} goal: forgetting to weave fails the build
 * with the fix, weaving makes it pass, and a configuration error or an annotated interface method fails it
 * before anything runs.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES) // a build takes seconds; minutes only on a machine shared and busy
class CheckGoalIT {
    private static final String ORDER_SERVICE = """
            package com.example;

            import dev.idem.IdempotencyKey;
            import dev.idem.Idempotent;

            public class OrderService {
                @Idempotent(scope = "shop:create-order", ttl = "%s")
                public String create(@IdempotencyKey String requestId, int quantity) {
                    return requestId + "x" + quantity;
                }
            }
            """;

    @BeforeAll
    static void repositories() throws Exception {
        SampleBuild.prepare();
    }

    private static Map<String, String> orderService(String ttl) {
        return Map.of("com/example/OrderService.java", ORDER_SERVICE.formatted(ttl));
    }

    @Test
    void withoutTheWeavingPluginTheBuildFailsNamingTheMethodAndTheFix() throws Exception {
        Path sample = project("unwoven", checkPlugin(""), orderService("24h"));

        SampleBuild.Result build = run(sample);

        assertFalse(build.succeeded(), build.toString());
        assertTrue(build.output().contains("com.example.OrderService#create(String, int) is annotated @Idempotent"
                + " but no weaver touched it: it would run without protection"), build.toString());
        assertTrue(build.output().contains("<artifactId>aspectj-maven-plugin</artifactId>"), "shows the fix: " + build);
        assertTrue(build.output().contains("<requireWoven>false</requireWoven>"), "and the way out: " + build);
    }

    @Test
    void theSameProjectWovenByTheAspectjPluginBuilds() throws Exception {
        Path sample = project("woven", weavingPlugin() + checkPlugin(""), orderService("24h"));

        SampleBuild.Result build = run(sample);

        assertTrue(build.succeeded(), build.toString());
        assertTrue(build.output().contains("idem:check: checked 1 @Idempotent method(s) in 1 class(es)"),
                "says what it checked: " + build);
        // Idem's aspect has an advice per parameter count, so most of them match nothing in any one module.
        assertFalse(build.output().contains("adviceDidNotMatch"), "no warning about Idem's own advice: " + build);
    }

    @Test
    void aBadKeyInIdemPropertiesIsListedAsAProblemNamingTheKeyAndTheFile() throws Exception {
        Path sample = project("bad-properties", weavingPlugin() + checkPlugin(""), orderService("24h"),
                Map.of("idem.properties", "idem.namespace=prod\nidem.namespce=staging\n"));

        SampleBuild.Result build = run(sample);

        assertFalse(build.succeeded(), build.toString());
        assertTrue(build.output().contains("1 @Idempotent problem(s)"), build.toString());
        assertTrue(build.output().contains("idem.properties"), "names the file: " + build);
        assertTrue(build.output().contains("unknown configuration key idem.namespce"), "names the key: " + build);
        assertFalse(build.output().contains("Execution default of goal"), "a listed problem, not a crash: " + build);
    }

    @Test
    void aConfigurationErrorOrAnAnnotatedInterfaceMethodFailsTheWovenBuildInTheEnginesWords() throws Exception {
        Path sample = project("bad-declarations", weavingPlugin() + checkPlugin(""), Map.of(
                "com/example/OrderService.java", ORDER_SERVICE.formatted("5 min"),
                "com/example/Orders.java", """
                        package com.example;

                        import dev.idem.Idempotent;

                        public interface Orders {
                            @Idempotent(scope = "shop:orders")
                            String create(String requestId);
                        }
                        """,
                "com/example/DatabaseOrders.java", """
                        package com.example;

                        public class DatabaseOrders implements Orders {
                            @Override
                            public String create(String requestId) {
                                return requestId;
                            }
                        }
                        """));

        SampleBuild.Result build = run(sample);

        assertFalse(build.succeeded(), build.toString());
        assertTrue(build.output().contains("3 @Idempotent problem(s)"), build.toString());
        assertTrue(build.output().contains("com.example.OrderService#create: @Idempotent(ttl = \"5 min\") is not a"
                + " duration"), build.toString());
        assertTrue(build.output().contains("com.example.Orders#create(String) is annotated @Idempotent but is"
                + " abstract (declared by an interface)"), build.toString());
        assertTrue(build.output().contains("com.example.DatabaseOrders#create(String) implements"
                + " com.example.Orders#create(String), which is annotated @Idempotent, but is not annotated itself"),
                build.toString());
        assertFalse(build.output().contains("no weaver touched"), "the woven method is not reported: " + build);
    }

    @Test
    void aModuleLeftToLoadTimeWeavingOrTheAgentSaysSoAndStillHasItsConfigurationChecked() throws Exception {
        String leftToTheAgent = checkPlugin("<configuration><requireWoven>false</requireWoven></configuration>");

        SampleBuild.Result build = run(project("left-to-the-agent", leftToTheAgent, orderService("5 min")));

        assertFalse(build.succeeded(), build.toString());
        assertTrue(build.output().contains("1 @Idempotent problem(s)"), build.toString());
        assertTrue(build.output().contains("com.example.OrderService#create: @Idempotent(ttl = \"5 min\")"),
                build.toString());
        assertFalse(build.output().contains("no weaver touched"), "not woven, as this module says: " + build);
    }
}
