package dev.idem.store.tck;

import dev.idem.store.tck.BrokenStores.CachesRecordsPerInstance;
import dev.idem.store.tck.BrokenStores.FoldsTheCaseOfKeys;
import dev.idem.store.tck.BrokenStores.IgnoresTrailingSpaces;
import dev.idem.store.tck.BrokenStores.KeepsTheCallersArray;
import dev.idem.store.tck.BrokenStores.LockPerInstance;
import dev.idem.store.tck.BrokenStores.LosingClaimReportsItsOwnStart;
import dev.idem.store.tck.BrokenStores.ReadThenWriteClaim;
import dev.idem.store.tck.BrokenStores.ReadThenWriteComplete;
import dev.idem.store.tck.BrokenStores.ReadThenWriteRenew;
import dev.idem.store.tck.BrokenStores.ReadThenWriteTakeover;
import dev.idem.store.tck.BrokenStores.ReadsTheJvmClock;
import dev.idem.store.tck.BrokenStores.ReleaseRemovesAFinishedRecord;
import dev.idem.store.tck.BrokenStores.RenewReopensAFailure;
import dev.idem.store.tck.BrokenStores.SecondCloseThrows;
import dev.idem.store.tck.BrokenStores.TakeoverKeepsTheOldOwnerAndPayloadHash;
import dev.idem.store.tck.BrokenStores.TokenCounterPerInstance;
import dev.idem.store.tck.BrokenStores.TokensRestartAfterDeleteOrExpiry;
import dev.idem.store.tck.BrokenStores.TruncatesKeys;
import dev.idem.store.tck.BrokenStores.WindowEndsAnExecutionInProgress;
import dev.idem.store.tck.ReferenceStore.Backend;

import java.time.Clock;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * The stores the TCK is run against in its own tests: two correct ones, and one per planted bug with the TCK tests
 * that must fail it (the tests written to catch that bug; others may fail it too).
 */
enum StoreVariant {
    /** Correct; reads the injected clock. */
    REFERENCE(Time.INJECTED_CLOCK, ReferenceStore::new),
    /** Correct; keeps a server's time that runs on its own, to the millisecond. */
    REFERENCE_ON_A_SERVER_CLOCK(Time.SERVER_CLOCK, ReferenceStore::new),

    TOKENS_RESTART_AFTER_DELETE_OR_EXPIRY(Time.INJECTED_CLOCK, TokensRestartAfterDeleteOrExpiry::new,
            "tokensKeepIncreasingAfterDeleteSoAStaleOwnerIsRefused",
            "tokensKeepIncreasingAfterExpirySoAStaleOwnerIsRefused"),
    RELEASE_REMOVES_A_FINISHED_RECORD(Time.INJECTED_CLOCK, ReleaseRemovesAFinishedRecord::new,
            "writesWithTheTokenOfACompletedRecordAreRefusedAndChangeNothing",
            "writesWithTheTokenOfAFailedRecordAreRefusedAndChangeNothing"),
    RENEW_REOPENS_A_FAILURE(Time.INJECTED_CLOCK, RenewReopensAFailure::new,
            "writesWithTheTokenOfAFailedRecordAreRefusedAndChangeNothing"),
    WINDOW_ENDS_AN_EXECUTION_IN_PROGRESS(Time.INJECTED_CLOCK, WindowEndsAnExecutionInProgress::new,
            "aWindowShorterThanTheLeaseNeverSupersedesAnExecutionInProgress"),
    TAKEOVER_KEEPS_THE_OLD_OWNER_AND_PAYLOAD_HASH(Time.INJECTED_CLOCK, TakeoverKeepsTheOldOwnerAndPayloadHash::new,
            "aTakeoverRecordsTheNewOwnerPayloadHashAndLeaseButKeepsTheStart"),
    LOSING_CLAIM_REPORTS_ITS_OWN_START(Time.INJECTED_CLOCK, LosingClaimReportsItsOwnStart::new,
            "aLosingClaimReturnsTheExistingRecordExactlyAsStored"),
    KEEPS_THE_CALLERS_ARRAY(Time.INJECTED_CLOCK, KeepsTheCallersArray::new,
            "theStoreKeepsItsOwnCopyOfAResultOrFailure"),
    READ_THEN_WRITE_CLAIM(Time.INJECTED_CLOCK, ReadThenWriteClaim::new,
            "exactlyOneOfManyConcurrentClaimersWins",
            "exactlyOneOfManyConcurrentTakeoversWins",
            "exactlyOneOfManyConcurrentSupersedesWins"),
    READ_THEN_WRITE_TAKEOVER(Time.INJECTED_CLOCK, ReadThenWriteTakeover::new,
            "exactlyOneOfManyConcurrentTakeoversWins",
            "exactlyOneOfManyConcurrentSupersedesWins"),
    READ_THEN_WRITE_COMPLETE(Time.INJECTED_CLOCK, ReadThenWriteComplete::new,
            "aCompletionRacingTakeoversHasExactlyOneWinner"),
    READ_THEN_WRITE_RENEW(Time.INJECTED_CLOCK, ReadThenWriteRenew::new,
            "aRenewalRacingTakeoversHasExactlyOneWinner"),
    LOCK_PER_INSTANCE(Time.INJECTED_CLOCK, LockPerInstance::new,
            "concurrentClaimsThroughTwoInstancesHaveOneWinner",
            "concurrentTakeoversThroughTwoInstancesHaveOneWinner"),
    TOKEN_COUNTER_PER_INSTANCE(Time.INJECTED_CLOCK, TokenCounterPerInstance::new,
            "tokensIncreaseAcrossInstances",
            "aTakeoverThroughOneInstanceFencesTheOldOwnerOnTheOther"),
    CACHES_RECORDS_PER_INSTANCE(Time.INJECTED_CLOCK, CachesRecordsPerInstance::new,
            "writesThroughOneInstanceAreSeenByTheOther"),
    READS_THE_JVM_CLOCK(Time.SERVER_CLOCK, ReadsTheJvmClock::new,
            "aJvmClockRunningAheadNeitherStampsRecordsNorEndsLeasesOrRecords",
            "aJvmClockRunningBehindKeepsNoLeaseOrRecordAlive"),
    FOLDS_THE_CASE_OF_KEYS(Time.INJECTED_CLOCK, FoldsTheCaseOfKeys::new,
            "keysThatDifferOnlyInCaseAreDifferentKeys"),
    IGNORES_TRAILING_SPACES(Time.INJECTED_CLOCK, IgnoresTrailingSpaces::new,
            "keysThatDifferOnlyInTrailingSpaceAreDifferentKeys"),
    TRUNCATES_KEYS(Time.INJECTED_CLOCK, TruncatesKeys::new,
            "keysOf2048CharactersAreKeptWhole"),
    SECOND_CLOSE_THROWS(Time.INJECTED_CLOCK, SecondCloseThrows::new,
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
