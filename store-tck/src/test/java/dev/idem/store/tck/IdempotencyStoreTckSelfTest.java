package dev.idem.store.tck;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.platform.commons.support.HierarchyTraversalMode;
import org.junit.platform.commons.support.ReflectionSupport;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.Events;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

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
            "tokensIncreaseAcrossInstances",
            "aTakeoverThroughOneInstanceFencesTheOldOwnerOnTheOther",
            "writesThroughOneInstanceAreSeenByTheOther");
    /** Tests that predate the planted bugs and that no broken store here fails yet. */
    private static final Set<String> NOT_YET_PROVEN = Set.of(
            "claimOfAnAbsentKeyIsAcquiredAndStoredInProgress",
            "claimIsRefusedWhileTheLeaseHolds",
            "takeoverAfterTheLeasePassesGetsALargerTokenAndReportsTheReplacedRecord",
            "keysAreIndependent",
            "writesWithAStaleTokenAreRefusedAndChangeNothing",
            "releaseMakesTheKeyAbsentAndTokensKeepIncreasing",
            "deleteRemovesARecordInAnyState",
            "completedResultsRoundTripByteExact",
            "expiryIsDecidedAtReadTime",
            "expiryCarriesJitterWithinTenPercentAndNeverShorter",
            "aFinishedRecordIsSupersededOnlyAfterTheWindow",
            "withoutAWindowAFinishedRecordHoldsUntilItExpires",
            "aRememberedFailureIsReturnedUntilItsTtlPasses",
            "renewExtendsTheLeaseFromNow",
            "anUnreachableStoreReportsIdempotencyStoreExceptionFromEveryOperation");

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

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = StoreVariant.class, names = {"REFERENCE", "REFERENCE_ON_A_SERVER_CLOCK"},
            mode = EnumSource.Mode.EXCLUDE)
    void aPlantedBugFailsTheTestsWrittenToCatchIt(StoreVariant broken) {
        DiscoverySelector[] targeted = broken.mustFail.stream()
                .map(test -> selectMethod(StoreVariantKit.class, test))
                .toArray(DiscoverySelector[]::new);
        for (int run = 0; run < REPETITIONS; run++) {
            Events tests = runKit(broken, true, targeted);

            Map<String, Throwable> failures = failures(tests);
            for (String test : broken.mustFail) {
                Throwable failure = failures.get(test);
                if (failure == null) {
                    fail(test + " passed a store that " + describe(broken) + " (run " + (run + 1) + ")");
                }
                assertInstanceOf(AssertionError.class, failure,
                        test + " must fail " + broken + " by an assertion, not by " + failure);
            }
        }
    }

    @Test
    void everyTckTestIsFailedByAPlantedBugOrListedAsNotYetProven() {
        Set<String> proven = Arrays.stream(StoreVariant.values())
                .flatMap(variant -> variant.mustFail.stream())
                .collect(Collectors.toCollection(TreeSet::new));
        Set<String> all = tckTests();

        assertTrue(all.containsAll(proven), "planted bugs name tests the TCK does not have: "
                + proven.stream().filter(t -> !all.contains(t)).toList());
        assertTrue(all.containsAll(NOT_YET_PROVEN), "NOT_YET_PROVEN names tests the TCK does not have");
        Set<String> unproven = all.stream()
                .filter(test -> !proven.contains(test) && !NOT_YET_PROVEN.contains(test))
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(Set.of(), unproven, "a new TCK test needs a planted bug that fails it (BrokenStores)");
        assertEquals(Set.of(), proven.stream().filter(NOT_YET_PROVEN::contains).collect(Collectors.toSet()),
                "tests a planted bug now proves leave NOT_YET_PROVEN");
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
        return ReflectionSupport.findMethods(IdempotencyStoreTck.class,
                        method -> method.isAnnotationPresent(Test.class), HierarchyTraversalMode.TOP_DOWN)
                .stream()
                .map(Method::getName)
                .collect(Collectors.toCollection(TreeSet::new));
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

    private static String testName(Event event) {
        return event.getTestDescriptor().getSource()
                .filter(MethodSource.class::isInstance)
                .map(source -> ((MethodSource) source).getMethodName())
                .orElseGet(() -> event.getTestDescriptor().getDisplayName());
    }

    private static String describe(StoreVariant broken) {
        return broken.name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }
}
