package dev.idem.store.tck;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.platform.commons.support.HierarchyTraversalMode;
import org.junit.platform.commons.support.ReflectionSupport;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.Events;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectNestedMethod;

/**
 * Proves the TCK: a correct store passes all of it, and each planted bug ({@link BrokenStores}) fails the tests
 * written to catch it, by an assertion (not by a crash or a timeout).
 *
 * <p>The races are nondeterministic by nature; to soak them, run with {@code -Didem.tck.selftest.repetitions=N}.
 */
class IdempotencyStoreTckSelfTest {
    private static final int REPETITIONS = Integer.getInteger("idem.tck.selftest.repetitions", 1);

    private static final Set<String> JVM_CLOCK_TESTS = Set.of(
            "aJvmClockRunningAheadNeitherStampsRecordsNorEndsLeasesOrRecords",
            "aJvmClockRunningBehindKeepsNoLeaseOrRecordAlive");
    private static final Set<String> SHARED_BACKEND_TESTS = Set.of(
            "concurrentClaimsThroughTwoInstancesHaveOneWinner",
            "concurrentTakeoversThroughTwoInstancesHaveOneWinner",
            "aCompletionThroughOneInstanceRacingTakeoversThroughTheOtherHasExactlyOneWinner",
            "aRenewalThroughOneInstanceRacingTakeoversThroughTheOtherHasExactlyOneWinner",
            "tokensIncreaseAcrossInstances",
            "aTakeoverThroughOneInstanceFencesTheOldOwnerOnTheOther",
            "writesThroughOneInstanceAreSeenByTheOther",
            "aWatchIsSignalledByWritesThroughAnotherInstance");

    @Test
    void theReferenceStoreOnTheInjectedClockPassesEverythingButTheJvmClockTests() {
        for (int run = 0; run < REPETITIONS; run++) {
            Events tests = runKit(StoreVariant.REFERENCE, true, selectClass(StoreVariantKit.class));

            assertEquals(Map.of(), failures(tests), "a correct store must fail nothing");
            assertEquals(new TreeSet<>(JVM_CLOCK_TESTS), skipped(tests).keySet(),
                    "only the tests of a JVM clock apart from the store's time are skipped");
            skipped(tests).values().forEach(reason -> assertTrue(reason.contains("injected clock"), reason));
            assertEquals(tckTests().size(), tests.started().count(), "every TCK test ran");
        }
    }

    @Test
    void theReferenceStoreOnAServerClockThatRunsOnItsOwnPassesEverything() {
        for (int run = 0; run < REPETITIONS; run++) {
            Events tests = runKit(StoreVariant.REFERENCE_ON_A_SERVER_CLOCK, true, selectClass(StoreVariantKit.class));

            assertEquals(Map.of(), failures(tests), "a correct store on a moving clock must fail nothing");
            assertEquals(Map.of(), skipped(tests), "nothing is skipped for a shared store on a server's time");
            assertEquals(tckTests().size(), tests.succeeded().count(), "every TCK test passed");
        }
    }

    @Test
    void withoutASecondInstanceTheSharedBackendTestsAreSkippedSayingWhy() {
        Events tests = runKit(StoreVariant.REFERENCE, false, selectClass(StoreVariantKit.class));

        assertEquals(Map.of(), failures(tests));
        Map<String, String> skipped = skipped(tests);
        assertTrue(skipped.keySet().containsAll(SHARED_BACKEND_TESTS), "skipped: " + skipped.keySet());
        SHARED_BACKEND_TESTS.forEach(test -> assertTrue(skipped.get(test).contains("createPeerStore"),
                test + " must say why it is skipped: " + skipped.get(test)));
    }

    static Stream<StoreVariant> brokenStores() {
        return Arrays.stream(StoreVariant.values()).filter(StoreVariant::isBroken);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("brokenStores")
    void aPlantedBugFailsTheTestsWrittenToCatchIt(StoreVariant broken) {
        Map<String, Class<?>> groups = tckTestGroups();
        DiscoverySelector[] targeted = broken.mustFail.stream()
                .map(test -> selectNestedMethod(List.of(StoreVariantKit.class), groupOf(groups, test), test))
                .toArray(DiscoverySelector[]::new);
        for (int run = 1; run <= REPETITIONS; run++) {
            Map<String, Throwable> failures = failures(runKit(broken, true, targeted));

            assertEquals(Set.of(), difference(broken.mustFail, failures.keySet()),
                    "tests that passed the broken store " + broken + " (run " + run + " of " + REPETITIONS + ")");
            failures.forEach((test, failure) -> assertInstanceOf(AssertionError.class, failure,
                    test + " must fail " + broken + " by an assertion, not by " + failure));
        }
    }

    @Test
    void everyTckTestIsWrittenToCatchAPlantedBug() {
        Set<String> targeted = Arrays.stream(StoreVariant.values())
                .flatMap(variant -> variant.mustFail.stream())
                .collect(Collectors.toCollection(TreeSet::new));
        Set<String> all = tckTests();

        assertEquals(Set.of(), difference(targeted, all), "planted bugs name tests the TCK does not have");
        assertEquals(Set.of(), difference(all, targeted),
                "a TCK test earns its place by failing a broken store: add one to BrokenStores and StoreVariant");
    }

    // ---------------------------------------------------------------------------------------------------------------

    private static Events runKit(StoreVariant variant, boolean peers, DiscoverySelector... selectors) {
        return EngineTestKit.engine("junit-jupiter")
                .configurationParameter(StoreVariantKit.VARIANT, variant.name())
                .configurationParameter(StoreVariantKit.PEERS, Boolean.toString(peers))
                .selectors(selectors)
                .execute()
                .testEvents();
    }

    private static Set<String> tckTests() {
        return new TreeSet<>(tckTestGroups().keySet());
    }

    /** Every TCK test by method name, with the {@code @Nested} group of {@link IdempotencyStoreTck} that holds it. */
    private static Map<String, Class<?>> tckTestGroups() {
        Map<String, Class<?>> groups = new TreeMap<>();
        for (Class<?> group : ReflectionSupport.findNestedClasses(IdempotencyStoreTck.class,
                nested -> nested.isAnnotationPresent(Nested.class))) {
            for (Method test : ReflectionSupport.findMethods(group, method -> method.isAnnotationPresent(Test.class),
                    HierarchyTraversalMode.TOP_DOWN)) {
                Class<?> earlier = groups.put(test.getName(), group);
                assertNull(earlier, () -> test.getName() + " is in two groups: " + earlier + " and " + group);
            }
        }
        return groups;
    }

    /** The failed tests by method name, with what failed them. */
    private static Map<String, Throwable> failures(Events tests) {
        return tests.failed().stream().collect(Collectors.toMap(IdempotencyStoreTckSelfTest::testName,
                event -> event.getRequiredPayload(TestExecutionResult.class).getThrowable()
                        .orElseThrow(), (a, b) -> a, TreeMap::new));
    }

    /** The tests skipped by a failed assumption (aborted, to the platform) by method name, with the reason given. */
    private static Map<String, String> skipped(Events tests) {
        return tests.aborted().stream().collect(Collectors.toMap(IdempotencyStoreTckSelfTest::testName,
                event -> event.getRequiredPayload(TestExecutionResult.class).getThrowable()
                        .map(Throwable::getMessage).orElse(""), (a, b) -> a, TreeMap::new));
    }

    private static Class<?> groupOf(Map<String, Class<?>> groups, String test) {
        Class<?> group = groups.get(test);
        assertNotNull(group, () -> test + " is in no @Nested group of the TCK");
        return group;
    }

    private static Set<String> difference(Set<String> these, Set<String> those) {
        return these.stream().filter(test -> !those.contains(test)).collect(Collectors.toCollection(TreeSet::new));
    }

    private static String testName(Event event) {
        return event.getTestDescriptor().getSource()
                .filter(org.junit.platform.engine.support.descriptor.MethodSource.class::isInstance)
                .map(source -> ((org.junit.platform.engine.support.descriptor.MethodSource) source).getMethodName())
                .orElseGet(() -> event.getTestDescriptor().getDisplayName());
    }
}
