package dev.idem.tests.agent;

import com.sun.tools.attach.VirtualMachine;
import dev.idem.testsupport.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agent on an unmodified, javac-compiled application in separate JVMs: the same scenarios as under compile-time
 * weaving with the agent, and the duplicates without it, proving the agent is what changed the behaviour.
 */
class AgentIT {
    private static final String APP = "dev.idem.tests.agent.app.AgentApp";
    private static final String AGENT = System.getProperty("agent.jar");
    private static final List<String> APP_CLASS_PATH = List.of(System.getProperty("app.jar"),
            System.getProperty("annotations.jar"));

    static Stream<Jdk> jdks() {
        return Jdk.available();
    }

    private static List<String> agent(String arguments) {
        return List.of("-javaagent:" + AGENT + (arguments.isEmpty() ? "" : "=" + arguments));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    @Timeout(value = 4, unit = TimeUnit.MINUTES) // four JVMs, one of them eight threads on one key
    void withoutTheAgentEveryDuplicateRuns(Jdk jvm) throws Exception {
        ChildJvm.Run dedup = jvm.run(List.of(), APP_CLASS_PATH, APP, "dedup");
        assertEquals("4", dedup.value("runs"), dedup.toString());
        assertEquals("2", dedup.value("static-runs"), dedup.toString());

        ChildJvm.Run coalesce = jvm.run(List.of(), APP_CLASS_PATH, APP, "coalesce");
        assertEquals("8", coalesce.value("runs"), coalesce.toString());

        ChildJvm.Run conflict = jvm.run(List.of(), APP_CLASS_PATH, APP, "conflict");
        assertEquals("none", conflict.value("conflict"), conflict.toString());

        ChildJvm.Run failClosed = jvm.run(List.of(), APP_CLASS_PATH, APP, "fail-closed");
        assertEquals("none", failClosed.value("store-error"), failClosed.toString());
        assertEquals("1", failClosed.value("runs"), failClosed.toString());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void withTheAgentDuplicatesAreReplayed(Jdk jvm) throws Exception {
        ChildJvm.Run run = jvm.run(agent(""), APP_CLASS_PATH, APP, "dedup");

        assertEquals(0, run.exitCode(), run.toString());
        assertEquals("2", run.value("runs"), "generate once, publish once: " + run);
        assertEquals("1", run.value("static-runs"), run.toString());
        assertEquals("[]", run.value("unwoven"), "WeavingCheck sees the agent's work: " + run);
        assertEquals(List.of(), run.errLines(), "a clean start prints nothing: " + run);
    }

    @Test
    void theStartUpCheckOfAnApplicationStartedWithoutTheAgentNamesTheMethodsAndHowToAttachIt() throws Exception {
        Jdk jvm = Jdk.available().findFirst().orElseThrow();
        ChildJvm.Run run = jvm.run(List.of(), APP_CLASS_PATH, APP, "startup-check");

        assertEquals(1, run.exitCode(), "main stops: " + run);
        assertEquals(null, run.value("checked"), "before going on unprotected: " + run);
        assertFalse(run.err().contains("NoClassDefFoundError"), "the check itself works without Idem's engine: "
                + run);
        assertTrue(run.err().contains("dev.idem.IdempotencyConfigurationException: 5 @Idempotent method(s)"),
                run.toString());
        assertTrue(run.err().contains("dev.idem.tests.agent.app.ArticleService#generate(String)"), run.toString());
        assertTrue(run.err().contains("dev.idem.tests.agent.app.ArticleService#order(String, int)"), run.toString());
        assertTrue(run.err().contains("-javaagent:idem-agent.jar"), "says how to attach the agent: " + run);
    }

    @Test
    void theStartUpCheckPassesUnderTheAgent() throws Exception {
        Jdk jvm = Jdk.available().findFirst().orElseThrow();
        ChildJvm.Run run = jvm.run(agent(""), APP_CLASS_PATH, APP, "startup-check");

        assertEquals(0, run.exitCode(), run.toString());
        assertEquals("woven", run.value("checked"), run.toString());
    }

    @Test
    void theAgentsKeptPlanFollowsTheEngineWhenItIsReplacedAtRunTime() throws Exception {
        Jdk jvm = Jdk.available().findFirst().orElseThrow();
        ChildJvm.Run run = jvm.run(agent(""), APP_CLASS_PATH, APP, "engine-replaced");

        assertEquals(0, run.exitCode(), run.toString());
        assertEquals("1", run.value("runs-before"), "the first engine ran it once, then replayed: " + run);
        assertEquals("2", run.value("runs-after"), "the replacement engine keeps nothing of the first: " + run);
        assertEquals("2", run.value("edition-after"), run.toString());
        assertEquals("true", run.value("same-kept"), "then answered from what the replacement keeps: " + run);
        assertEquals("[EXECUTED:result stored, REPLAYED:from the store, REPLAYED:from this JVM's results,"
                + " REPLAYED:from this JVM's results]", run.value("events"), "all on the replacement: " + run);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void withTheAgentConcurrentCallsAreCoalesced(Jdk jvm) throws Exception {
        ChildJvm.Run run = jvm.run(agent(""), APP_CLASS_PATH, APP, "coalesce");

        assertEquals("1", run.value("runs"), run.toString());
        assertEquals("7", run.value("coalesced"), run.toString());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void withTheAgentAConflictIsACatchableIdemException(Jdk jvm) throws Exception {
        ChildJvm.Run run = jvm.run(agent(""), APP_CLASS_PATH, APP, "conflict");

        assertEquals("caught", run.value("conflict"), run.toString());
        assertEquals("1", run.value("runs"), run.toString());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void withTheAgentAnUnreachableStoreFailsClosed(Jdk jvm) throws Exception {
        ChildJvm.Run run = jvm.run(agent(""), APP_CLASS_PATH, APP, "fail-closed");

        assertEquals("caught", run.value("store-error"), run.toString());
        assertEquals("0", run.value("runs"), run.toString());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    void classesOfAChildClassLoaderAreInstrumented(Jdk jvm) throws Exception {
        ChildJvm.Run run = jvm.run(agent(""), APP_CLASS_PATH, APP, "child-loader", System.getProperty("plugin.jar"));

        assertEquals("child", run.value("loader"), run.toString());
        assertEquals("hello ada", run.value("greeting"), run.toString());
        assertEquals("1", run.value("runs"), run.toString());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    @Timeout(value = 2, unit = TimeUnit.MINUTES) // the retry-storm demo: worker threads in the child JVM
    void aClassWovenAtCompileTimeIsLeftAloneSoTheAdviceRunsOnce(Jdk jvm) throws Exception {
        // The samples are woven by ajc; under the agent they must behave exactly as without it.
        List<String> classPath = List.of(System.getProperty("samples.jar"), System.getProperty("aspect.jar"),
                System.getProperty("aspectjrt.jar"));
        ChildJvm.Run run = jvm.run(agent("verbose=true"), classPath, "dev.idem.samples.RetryStormDemo");

        assertEquals(0, run.exitCode(), run.toString());
        assertTrue(run.err().contains("[idem-agent] left to AspectJ dev.idem.samples.IdempotentArticlePipeline#"),
                "verbose says which methods it left to AspectJ: " + run);
        assertTrue(run.out().lines().anyMatch(l -> l.matches("operations \\(billed generations\\)\\s+13\\s+4")),
                run.toString());
    }

    @Test
    void besideAspectjLoadTimeWeavingTheAgentLeavesWovenClassesAloneInEitherOrder() throws Exception {
        Jdk jvm = Jdk.available().findFirst().orElseThrow();
        String weaver = "-javaagent:" + System.getProperty("aspectjweaver.jar");
        String idem = agent("verbose=true").get(0);
        List<String> classPath = new ArrayList<>(APP_CLASS_PATH);
        classPath.add(System.getProperty("aspect.jar"));
        for (List<String> options : List.of(List.of(weaver, idem), List.of(idem, weaver))) {
            ChildJvm.Run run = jvm.run(options, classPath, APP, "dedup");

            assertEquals("2", run.value("runs"), "one execution per method, whichever agent starts first: " + run);
            for (String method : List.of("generate(String)", "publish(String)", "count(String)")) {
                assertTrue(run.err().contains("[idem-agent] left to AspectJ dev.idem.tests.agent.app.ArticleService#"
                        + method + " (its class is already woven by AspectJ"), method + ": " + run);
            }
            assertFalse(run.err().contains("instrumented dev.idem.tests.agent.app.ArticleService"), run.toString());
        }
    }

    @Test
    void theAgentJarHoldsNoClassOutsideDevIdem() throws IOException {
        try (JarFile jar = new JarFile(AGENT)) {
            List<String> foreign = jar.stream().map(JarEntry::getName)
                    .map(name -> name.replaceFirst("^META-INF/versions/\\d+/", ""))
                    .filter(name -> name.endsWith(".class") && !name.startsWith("dev/idem/"))
                    .toList();

            assertEquals(List.of(), foreign, "every bundled library is relocated under dev.idem.agent.shaded (or"
                    + " left out), so none meets the application's own copy");
        }
    }

    @Test
    void theAgentJarCarriesCoresCaffeineRelocatedSoAnApplicationsOwnCaffeineIsLeftAlone() throws IOException {
        try (JarFile jar = new JarFile(AGENT)) {
            assertTrue(jar.getEntry("dev/idem/agent/shaded/caffeine/cache/Caffeine.class") != null,
                    "core's in-flight map and local results need Caffeine at run time");
            assertTrue(jar.getEntry("com/github/benmanes/caffeine/cache/Caffeine.class") == null,
                    "an application's com.github.benmanes.caffeine, of whatever version, is the only one there");
        }
    }

    @Test
    void anAgentAttachedTwiceInstrumentsOnce() throws Exception {
        Jdk jvm = Jdk.available().findFirst().orElseThrow();
        List<String> twice = new ArrayList<>(agent(""));
        twice.addAll(agent("verbose=true"));

        ChildJvm.Run run = jvm.run(twice, APP_CLASS_PATH, APP, "dedup");

        assertEquals("2", run.value("runs"), run.toString());
        assertTrue(run.err().contains("already installed in this JVM"), run.toString());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("jdks")
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aLateAttachRetransformsClassesAlreadyLoaded(Jdk jvm) throws Exception {
        List<String> options = jvm.major() >= 21 ? List.of("-XX:+EnableDynamicAgentLoading") : List.of();
        try (ChildJvm app = jvm.child(options, APP_CLASS_PATH, APP, "late-attach").name("late-attach").start()) {
            // Every wait below has a deadline; on any failure closing the child destroys the application.
            String ready = app.next(l -> l.startsWith("ready pid="), Duration.ofSeconds(60));
            VirtualMachine vm = VirtualMachine.attach(ready.substring("ready pid=".length()));
            try {
                vm.loadAgent(AGENT, "verbose=true");
            } finally {
                vm.detach();
            }
            app.send("go");
            String runs = app.next(l -> l.startsWith("runs="), Duration.ofSeconds(60));
            app.awaitExit(Duration.ofSeconds(60));
            assertEquals("runs=2", runs, "one call before the attach, one after (its duplicate replayed); " + app);
            assertTrue(app.errors().contains("ArticleService#generate(String) (retransformed)"), app.toString());
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"store=nope", "ttl=5x", "colour=blue", "onStoreError=maybe", "namespace=prod eu",
        "include=com..example", "verbose=yes"})
    void aBadArgumentStopsTheJvmWithOneLineNamingIt(String argument) throws Exception {
        Jdk jvm = Jdk.available().findFirst().orElseThrow();
        ChildJvm.Run run = jvm.run(agent(argument), APP_CLASS_PATH, APP, "dedup");

        assertTrue(run.exitCode() != 0, run.toString());
        assertFalse(run.out().contains("started"), "the application must not run unprotected: " + run);
        assertEquals(1, run.errLines().size(), run.toString());
        String line = run.errLines().get(0);
        assertTrue(line.startsWith("idem-agent: "), line);
        String key = argument.substring(0, argument.indexOf('='));
        assertTrue(line.contains(key), "names the argument: " + line);
    }

    @Test
    void anAnnotatedMethodTheArgumentsExcludeIsReportedAsAnError() throws Exception {
        Jdk jvm = Jdk.available().findFirst().orElseThrow();
        ChildJvm.Run run = jvm.run(agent("exclude=dev.idem.tests.agent.app"), APP_CLASS_PATH, APP, "dedup");

        assertEquals("4", run.value("runs"), run.toString());
        assertTrue(run.err().contains("[idem-agent] ERROR dev.idem.tests.agent.app.ArticleService#generate(String)"
                + " is annotated @Idempotent but not instrumented (excluded by exclude=dev.idem.tests.agent.app)"),
                run.toString());
    }

    @Test
    void aBadDeclarationIsReportedWhenItsClassLoadsBeforeAnyCallAndNeverRuns() throws Exception {
        Jdk jvm = Jdk.available().findFirst().orElseThrow();
        ChildJvm.Run run = jvm.run(agent(""), APP_CLASS_PATH, APP, "bad-ttl");

        List<String> err = run.errLines();
        assertEquals(2, err.size(), run.toString());
        assertTrue(err.get(0).startsWith("[idem-agent] ERROR dev.idem.tests.agent.app.BadDeclarations$BadTtl#generate:"
                + " @Idempotent(ttl = \"5 min\") is not a duration"), run.toString());
        assertTrue(err.get(0).endsWith("Every call of it is refused until this is fixed."), run.toString());
        assertEquals("-- before the first call --", err.get(1), "reported as the class loaded: " + run);
        assertEquals("yes", run.value("refused"), run.toString());
        assertEquals("0", run.value("runs"), "never run unprotected: " + run);
    }

    @Test
    void anAnnotatedInterfaceMethodIsRefusedWhenTheInterfaceLoadsAndItsImplementationIsNotInstrumented()
            throws Exception {
        Jdk jvm = Jdk.available().findFirst().orElseThrow();
        ChildJvm.Run run = jvm.run(agent(""), APP_CLASS_PATH, APP, "interface");

        List<String> err = run.errLines();
        assertEquals(2, err.size(), run.toString());
        assertTrue(err.get(0).startsWith("[idem-agent] ERROR dev.idem.tests.agent.app.BadDeclarations$Orders#create("
                + "String) is annotated @Idempotent but is abstract (declared by an interface)"), run.toString());
        assertTrue(err.get(0).contains("Put @Idempotent on each implementing method instead"), run.toString());
        assertEquals("-- before the first call --", err.get(1), run.toString());
        assertEquals("2", run.value("runs"), "the same answer as the weavers: not applied, refused loudly: " + run);
    }
}
