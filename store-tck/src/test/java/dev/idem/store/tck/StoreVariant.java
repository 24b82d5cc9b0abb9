package dev.idem.store.tck;

import dev.idem.store.tck.ReferenceStore.Backend;

import java.time.Clock;
import java.util.Set;
import java.util.function.BiFunction;

import static dev.idem.store.tck.StoreVariant.Time.INJECTED_CLOCK;
import static dev.idem.store.tck.StoreVariant.Time.SERVER_CLOCK;

/**
 * The stores the TCK is run against in its own tests: two correct ones, and one per planted bug with the TCK tests
 * that must fail it (the tests written to catch that bug; others may fail it too). Every TCK test is named by at
 * least one planted bug: a test that no broken store fails has not shown it earns its place.
 */
enum StoreVariant {
    /** Correct; reads the injected clock. */
    REFERENCE(INJECTED_CLOCK, ReferenceStore::new),
    /** Correct; keeps a server's time that runs on its own, to the millisecond. */
    REFERENCE_ON_A_SERVER_CLOCK(SERVER_CLOCK, ReferenceStore::new),

    TOKENS_RESTART_AFTER_DELETE_OR_EXPIRY(INJECTED_CLOCK, BrokenStores.TokensRestartAfterDeleteOrExpiry::new,
            "tokensKeepIncreasingAfterDeleteSoAStaleOwnerIsRefused",
            "tokensKeepIncreasingAfterExpirySoAStaleOwnerIsRefused"),
    RELEASE_REMOVES_A_FINISHED_RECORD(INJECTED_CLOCK, BrokenStores.ReleaseRemovesAFinishedRecord::new,
            "writesWithTheTokenOfACompletedRecordAreRefusedAndChangeNothing",
            "writesWithTheTokenOfAFailedRecordAreRefusedAndChangeNothing"),
    RENEW_REOPENS_A_FAILURE(INJECTED_CLOCK, BrokenStores.RenewReopensAFailure::new,
            "writesWithTheTokenOfAFailedRecordAreRefusedAndChangeNothing"),
    WINDOW_ENDS_AN_EXECUTION_IN_PROGRESS(INJECTED_CLOCK, BrokenStores.WindowEndsAnExecutionInProgress::new,
            "aWindowShorterThanTheLeaseNeverSupersedesAnExecutionInProgress"),
    TAKEOVER_KEEPS_THE_OLD_OWNER_AND_PAYLOAD_HASH(INJECTED_CLOCK,
            BrokenStores.TakeoverKeepsTheOldOwnerAndPayloadHash::new,
            "aTakeoverRecordsTheNewOwnerPayloadHashAndLeaseButKeepsTheStart"),
    TAKEOVER_RESTARTS_THE_EXECUTION(INJECTED_CLOCK, BrokenStores.TakeoverRestartsTheExecution::new,
            "aTakeoverRecordsTheNewOwnerPayloadHashAndLeaseButKeepsTheStart"),
    TRANSACTIONAL_CLAIM_KEEPS_THE_OLD_PAYLOAD_HASH(INJECTED_CLOCK,
            BrokenStores.TransactionalClaimKeepsTheOldPayloadHash::new,
            "aTransactionalTakeoverRecordsTheNewOwnerPayloadHashAndLease",
            "aTransactionalSupersedeRecordsTheNewOwnerPayloadHash"),
    ROLLBACK_KEEPS_THE_TRANSACTIONS_WRITES(INJECTED_CLOCK, BrokenStores.RollbackKeepsTheTransactionsWrites::new,
            "aTransactionalTakeoverThatRollsBackLeavesTheRecordAsItWas"),
    LOSING_CLAIM_REPORTS_ITS_OWN_START(INJECTED_CLOCK, BrokenStores.LosingClaimReportsItsOwnStart::new,
            "aLosingClaimReturnsTheExistingRecordExactlyAsStored"),
    KEEPS_THE_CALLERS_ARRAY(INJECTED_CLOCK, BrokenStores.KeepsTheCallersArray::new,
            "theStoreKeepsItsOwnCopyOfAResultOrFailure"),
    READ_THEN_WRITE_CLAIM(INJECTED_CLOCK, BrokenStores.ReadThenWriteClaim::new,
            "exactlyOneOfManyConcurrentClaimersWins",
            "exactlyOneOfManyConcurrentTakeoversWins",
            "exactlyOneOfManyConcurrentSupersedesWins"),
    READ_THEN_WRITE_TAKEOVER(INJECTED_CLOCK, BrokenStores.ReadThenWriteTakeover::new,
            "exactlyOneOfManyConcurrentTakeoversWins",
            "exactlyOneOfManyConcurrentSupersedesWins"),
    READ_THEN_WRITE_COMPLETE(INJECTED_CLOCK, BrokenStores.ReadThenWriteComplete::new,
            "aCompletionRacingTakeoversHasExactlyOneWinner"),
    READ_THEN_WRITE_RENEW(INJECTED_CLOCK, BrokenStores.ReadThenWriteRenew::new,
            "aRenewalRacingTakeoversHasExactlyOneWinner"),
    LOCK_PER_INSTANCE(INJECTED_CLOCK, BrokenStores.LockPerInstance::new,
            "concurrentClaimsThroughTwoInstancesHaveOneWinner",
            "concurrentTakeoversThroughTwoInstancesHaveOneWinner"),
    WRITES_LOCKED_PER_INSTANCE(INJECTED_CLOCK, BrokenStores.WritesLockedPerInstance::new,
            "aCompletionThroughOneInstanceRacingTakeoversThroughTheOtherHasExactlyOneWinner",
            "aRenewalThroughOneInstanceRacingTakeoversThroughTheOtherHasExactlyOneWinner"),
    TOKEN_COUNTER_PER_INSTANCE(INJECTED_CLOCK, BrokenStores.TokenCounterPerInstance::new,
            "tokensIncreaseAcrossInstances",
            "aTakeoverThroughOneInstanceFencesTheOldOwnerOnTheOther"),
    CACHES_RECORDS_PER_INSTANCE(INJECTED_CLOCK, BrokenStores.CachesRecordsPerInstance::new,
            "writesThroughOneInstanceAreSeenByTheOther"),
    READS_THE_JVM_CLOCK(SERVER_CLOCK, BrokenStores.ReadsTheJvmClock::new,
            "aJvmClockRunningAheadNeitherStampsRecordsNorEndsLeasesOrRecords",
            "aJvmClockRunningBehindKeepsNoLeaseOrRecordAlive"),
    REPORTS_THE_JVM_CLOCK_AS_ITS_TIME(SERVER_CLOCK, BrokenStores.ReportsTheJvmClockAsItsTime::new,
            "aClaimReportsTheStoresTimeIfAny"),
    FOLDS_THE_CASE_OF_KEYS(INJECTED_CLOCK, BrokenStores.FoldsTheCaseOfKeys::new,
            "keysThatDifferOnlyInCaseAreDifferentKeys"),
    IGNORES_TRAILING_SPACES(INJECTED_CLOCK, BrokenStores.IgnoresTrailingSpaces::new,
            "keysThatDifferOnlyInTrailingSpaceAreDifferentKeys"),
    TRUNCATES_KEYS(INJECTED_CLOCK, BrokenStores.TruncatesKeys::new,
            "keysOf2048CharactersAreKeptWhole"),
    SECOND_CLOSE_THROWS(INJECTED_CLOCK, BrokenStores.SecondCloseThrows::new,
            "closingTwiceIsHarmless"),
    WATCHES_PER_INSTANCE(INJECTED_CLOCK, BrokenStores.WatchesPerInstance::new,
            "aWatchIsSignalledByWritesThroughAnotherInstance"),
    FORGETS_A_SIGNAL_BEFORE_THE_WAIT(INJECTED_CLOCK, BrokenStores.ForgetsASignalBeforeTheWait::new,
            "aWatchIsSignalledByACompletionFailureReleaseOrDeletionOfItsKey",
            "aWatchIsSignalledByWritesThroughAnotherInstance"),
    SIGNALS_EVERY_WATCH(INJECTED_CLOCK, BrokenStores.SignalsEveryWatch::new,
            "aWatchOfAKeyNothingFinishesIsNotSignalledAndItsWaitEnds"),
    SIGNALS_ONLY_FINISHED_RECORDS(INJECTED_CLOCK, BrokenStores.SignalsOnlyFinishedRecords::new,
            "aWatchIsSignalledByACompletionFailureReleaseOrDeletionOfItsKey",
            "aWatchIsSignalledByWritesThroughAnotherInstance"),

    // Bugs the tests that predate the planted ones catch
    SWAPS_OWNER_AND_PAYLOAD_HASH(INJECTED_CLOCK, BrokenStores.SwapsOwnerAndPayloadHash::new,
            "claimOfAnAbsentKeyIsAcquiredAndStoredInProgress"),
    LEASE_PASSES_UP_TO_A_SECOND_EARLY(INJECTED_CLOCK, BrokenStores.LeasePassesUpToASecondEarly::new,
            "claimIsRefusedWhileTheLeaseHolds"),
    LEASE_HELD_AT_ITS_END(INJECTED_CLOCK, BrokenStores.LeaseHeldAtItsEnd::new,
            "takeoverAfterTheLeasePassesGetsALargerTokenAndReportsTheReplacedRecord"),
    REPORTS_NOTHING_REPLACED(INJECTED_CLOCK, BrokenStores.ReportsNothingReplaced::new,
            "takeoverAfterTheLeasePassesGetsALargerTokenAndReportsTheReplacedRecord",
            "aFinishedRecordIsSupersededOnlyAfterTheWindow"),
    WRITES_MATCHED_BY_TOKEN_ALONE(INJECTED_CLOCK, BrokenStores.WritesMatchedByTokenAlone::new,
            "keysAreIndependent"),
    RENEW_IGNORES_THE_TOKEN(INJECTED_CLOCK, BrokenStores.RenewIgnoresTheToken::new,
            "writesWithAStaleTokenAreRefusedAndChangeNothing"),
    TOKENS_RESTART_AFTER_RELEASE(INJECTED_CLOCK, BrokenStores.TokensRestartAfterRelease::new,
            "releaseMakesTheKeyAbsentAndTokensKeepIncreasing"),
    DRAWS_THE_TOKEN_BEFORE_THE_CLAIM_IS_SETTLED(INJECTED_CLOCK,
            BrokenStores.DrawsTheTokenBeforeTheClaimIsSettled::new,
            "tokensOfOneKeyIncreaseInHoldingOrderAcrossReleasesDeletesAndSweeps"),
    DELETE_KEEPS_FINISHED_RECORDS(INJECTED_CLOCK, BrokenStores.DeleteKeepsFinishedRecords::new,
            "deleteRemovesARecordInAnyState"),
    KEEPS_RESULTS_AS_TEXT(INJECTED_CLOCK, BrokenStores.KeepsResultsAsText::new,
            "completedResultsRoundTripByteExact"),
    EXPIRES_A_MILLISECOND_LATE(INJECTED_CLOCK, BrokenStores.ExpiresAMillisecondLate::new,
            "expiryIsDecidedAtReadTime"),
    NO_JITTER(INJECTED_CLOCK, BrokenStores.NoJitter::new,
            "expiryCarriesJitterWithinTenPercentAndNeverShorter"),
    WINDOW_COUNTED_FROM_COMPLETION(INJECTED_CLOCK, BrokenStores.WindowCountedFromCompletion::new,
            "aFinishedRecordIsSupersededOnlyAfterTheWindow"),
    ZERO_WINDOW_SUPERSEDES_AT_ONCE(INJECTED_CLOCK, BrokenStores.ZeroWindowSupersedesAtOnce::new,
            "withoutAWindowAFinishedRecordHoldsUntilItExpires"),
    FORGETS_FAILURES(INJECTED_CLOCK, BrokenStores.ForgetsFailures::new,
            "aRememberedFailureIsReturnedUntilItsTtlPasses"),
    RENEWS_FROM_THE_OLD_LEASE(INJECTED_CLOCK, BrokenStores.RenewsFromTheOldLease::new,
            "renewExtendsTheLeaseFromNow"),
    KEEPS_WORKING_AFTER_CLOSE(INJECTED_CLOCK, BrokenStores.KeepsWorkingAfterClose::new,
            "anUnreachableStoreReportsIdempotencyStoreExceptionFromEveryOperation",
            "anUnreachableStoreRefusesToOpenAWatch",
            "closingTwiceIsHarmless");

    /** Whose time the backend keeps. */
    enum Time { INJECTED_CLOCK, SERVER_CLOCK }

    final Time time;
    private final BiFunction<Backend, Clock, ReferenceStore> open;
    /** The TCK tests written to catch this variant's bug; empty for a correct store. */
    final Set<String> mustFail;

    StoreVariant(Time time, BiFunction<Backend, Clock, ReferenceStore> open, String... mustFail) {
        this.time = time;
        this.open = open;
        this.mustFail = Set.of(mustFail);
    }

    boolean isBroken() {
        return !mustFail.isEmpty();
    }

    /** An instance over {@code backend}, given the JVM's clock as a provider would be. */
    ReferenceStore open(Backend backend, Clock injectedClock) {
        return open.apply(backend, injectedClock);
    }
}
