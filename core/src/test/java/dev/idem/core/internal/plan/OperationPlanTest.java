package dev.idem.core.internal.plan;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotencyKeyException;
import dev.idem.Idempotent;
import dev.idem.WindowAlignment;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyPolicy;
import dev.idem.core.InMemoryIdempotencyStore;
import dev.idem.core.internal.EngineCore;
import dev.idem.core.internal.key.CallKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SEMANTICS.md sections 1 and 3 through an operation's plan: FIXED windows put the start of the aligned bucket,
 * in local time of the zone, into the key; SLIDING windows answer duplicates until start + window; the version
 * changes every key; the payload decides conflicts.
 */
class OperationPlanTest {
    private final Clock clock = Clock.systemUTC();
    private final EngineCore core = new EngineCore(IdemSettings.custom().namespace("plan-test")
            .store("memory", new InMemoryIdempotencyStore(clock)).build(), (sweep, period) -> () -> { },
            OperationPlanTest.class.getClassLoader());

    @AfterEach
    void close() {
        core.close();
    }

    private OperationPlan plan(IdempotencyPolicy.Builder policy) {
        return core.plan(policy.build(), String.class);
    }

    private OperationPlan fixed(String window, String zone) {
        return plan(IdempotencyPolicy.custom().scope("fixed:" + window + ":" + zone).window(window)
                .windowAlignment(WindowAlignment.FIXED).zone(zone).ttl("7d"));
    }

    private static long at(String instant) {
        return Instant.parse(instant).toEpochMilli();
    }

    private static Object[] values(Object... keyValues) {
        return new Object[] {keyValues};
    }

    @Test
    void aFixedDailyWindowStartsAtMidnightUtc() {
        OperationPlan daily = fixed("1d", "UTC");
        assertEquals(at("2026-03-01T00:00:00Z"), daily.windowStart(at("2026-03-01T08:00:00Z")));
        assertEquals(at("2026-03-01T00:00:00Z"), daily.windowStart(at("2026-03-01T00:00:00Z")));
        assertEquals(at("2026-03-01T00:00:00Z"), daily.windowStart(at("2026-03-01T23:59:59.999Z")));
        assertEquals(at("1969-12-31T00:00:00Z"), daily.windowStart(at("1969-12-31T23:00:00Z")), "before 1970 too");
    }

    @Test
    void aFixedWindowIsAlignedToLocalTimeInItsZone() {
        OperationPlan tokyo = fixed("1d", "Asia/Tokyo"); // UTC+9
        assertEquals(at("2026-02-28T15:00:00Z"), tokyo.windowStart(at("2026-03-01T14:59:59.999Z")));
        assertEquals(at("2026-03-01T15:00:00Z"), tokyo.windowStart(at("2026-03-01T15:00:00Z")));
        OperationPlan newYork = fixed("1d", "America/New_York"); // UTC-5 in winter, UTC-4 in summer
        assertEquals(at("2026-02-28T05:00:00Z"), newYork.windowStart(at("2026-03-01T04:59:00Z")));
        assertEquals(at("2026-03-01T05:00:00Z"), newYork.windowStart(at("2026-03-01T05:00:00Z")));
        assertEquals(at("2026-07-01T04:00:00Z"), newYork.windowStart(at("2026-07-01T12:00:00Z")));
        OperationPlan kolkata = fixed("1h", "Asia/Kolkata"); // UTC+5:30: hours begin at half past in UTC
        assertEquals(at("2026-03-01T09:30:00Z"), kolkata.windowStart(at("2026-03-01T10:10:00Z")));
        assertEquals(at("2026-03-01T08:30:00Z"), kolkata.windowStart(at("2026-03-01T09:29:59Z")));
        OperationPlan sevenMinutes = fixed("7m", "UTC");
        assertEquals(at("2026-03-01T07:55:00Z"), sevenMinutes.windowStart(at("2026-03-01T08:00:00Z")));
    }

    @Test
    void aFixedWindowsKeyChangesWithTheBucketAndOnlyThen() {
        OperationPlan tokyo = fixed("1d", "Asia/Tokyo");
        assertTrue(tokyo.keyDependsOnTime());
        CallKey evening = tokyo.identify(values("rust"), at("2026-03-01T14:00:00Z"));
        assertEquals(evening, tokyo.identify(values("rust"), at("2026-03-01T14:59:59Z")));
        assertNotEquals(evening, tokyo.identify(values("rust"), at("2026-03-01T15:00:00Z")));
        assertEquals(Long.MAX_VALUE, tokyo.supersedeAt(at("2026-03-01T14:00:00Z")), "the key changes instead");
    }

    @Test
    void aSlidingWindowEndsWindowAfterTheFirstStartAndKeepsTimeOutOfTheKey() {
        OperationPlan sliding = plan(IdempotencyPolicy.custom().scope("sliding").window("5m").ttl("30m"));
        assertFalse(sliding.keyDependsOnTime());
        long start = at("2026-03-01T08:00:00Z");
        assertEquals(start + 300_000, sliding.supersedeAt(start));
        assertEquals(sliding.identify(values("rust"), start), sliding.identify(values("rust"), start + 86_400_000L));
    }

    @Test
    void withoutAWindowTheTtlAloneDecides() {
        OperationPlan plain = plan(IdempotencyPolicy.custom().scope("no-window"));
        assertEquals(Long.MAX_VALUE, plain.supersedeAt(at("2026-03-01T08:00:00Z")));
        assertFalse(plain.keyDependsOnTime());
    }

    @Test
    void theKeyIsTheNamespaceTheScopeAndAHashOfTheValuesAndTheVersion() {
        OperationPlan v1 = plan(IdempotencyPolicy.custom().scope("lab:daily"));
        OperationPlan v2 = plan(IdempotencyPolicy.custom().scope("lab:daily-v2").version("2"));
        CallKey key = v1.identify(values("rust", 1), 0);
        assertTrue(key.toString().matches("idem:plan-test:lab:daily:[0-9a-f]{32}"), key.toString());
        assertEquals(key, v1.identify(values("rust", 1), 0));
        assertNotEquals(key, v1.identify(values("rust", 2), 0));
        String hash = key.toString().substring(key.toString().lastIndexOf(':'));
        String versioned = v2.identify(values("rust", 1), 0).toString();
        assertNotEquals(hash, versioned.substring(versioned.lastIndexOf(':')), "the version is in the hash");
    }

    @Test
    void aPlanNamesItsOperationAndKeepsItsPolicy() {
        IdempotencyPolicy policy = IdempotencyPolicy.custom().operation("daily-article").scope("named").build();
        OperationPlan plan = core.plan(policy, String.class);
        assertEquals("daily-article", plan.operation());
        assertSame(policy, plan.policy());
        assertEquals(Orders.class.getName() + "#place", planOf("place").operation());
    }

    @Test
    void aProgrammaticOperationsPayloadIsItsKeySoAKeyMatchIsAPayloadMatch() {
        OperationPlan plan = plan(IdempotencyPolicy.custom().scope("payload-is-key"));
        assertTrue(plan.samePayload(new byte[] {1}, new byte[] {2}));
        assertArrayEquals(plan.payloadDigest(values("rust")), plan.payloadDigest(values("rust")));
    }

    static class Orders {
        @Idempotent(scope = "{tenant}:orders")
        String place(@IdempotencyKey String orderId, String tenant, int quantity) {
            return orderId;
        }

        @Idempotent(scope = "anything")
        String anything(Object value) {
            return "";
        }
    }

    private OperationPlan planOf(String name) {
        for (Method m : Orders.class.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                return core.plan(m);
            }
        }
        throw new AssertionError(name);
    }

    @Test
    void aMethodsPayloadIsEveryParameterAndDecidesConflicts() {
        OperationPlan place = planOf("place");
        byte[] two = place.payloadDigest(new Object[] {"o-1", "acme", 2});
        byte[] copy = two.clone();
        byte[] three = place.payloadDigest(new Object[] {"o-1", "acme", 3});
        assertArrayEquals(copy, two, "a digest stays as it was after the next one is computed");
        assertFalse(Arrays.equals(two, three));
        assertTrue(place.samePayload(two, copy));
        assertFalse(place.samePayload(two, three), "same key, other payload: a conflict");
        assertEquals(place.identify(new Object[] {"o-1", "acme", 2}, 0), place.identify(new Object[] {"o-1", "acme",
                3}, 0), "the quantity is payload, not key");
        assertTrue(place.identify(new Object[] {"o-1", "acme", 2}, 0).toString().startsWith(
                "idem:plan-test:acme:orders:"));
    }

    @Test
    void aKeyThatCannotBeBuiltIsAKeyErrorNamingTheOperation() {
        IdempotencyKeyException scope = assertThrows(IdempotencyKeyException.class,
                () -> planOf("place").identify(new Object[] {"o-1", "not a tenant", 2}, 0));
        assertTrue(scope.getMessage().startsWith(Orders.class.getName() + "#place: scope placeholder {tenant}"),
                scope.getMessage());
        IdempotencyKeyException value = assertThrows(IdempotencyKeyException.class,
                () -> planOf("anything").identify(new Object[] {Thread.currentThread()}, 0));
        assertTrue(value.getMessage().startsWith(Orders.class.getName() + "#anything: parameter 'value' cannot be"
                + " encoded into a key: "), value.getMessage());
        assertThrows(IdempotencyKeyException.class,
                () -> planOf("anything").payloadDigest(new Object[] {Thread.currentThread()}));
    }
}
