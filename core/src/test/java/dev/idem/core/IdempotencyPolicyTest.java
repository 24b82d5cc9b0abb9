package dev.idem.core;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.Idempotent;
import dev.idem.OnInProgress;
import dev.idem.OnStoreError;
import dev.idem.StoreTransaction;
import dev.idem.WindowAlignment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The annotation's attributes as a policy (docs/configuration.md, per-method table; SEMANTICS.md sections 3 and 6):
 * defaults, the parsing of every attribute, and the refusals, each naming the operation, the attribute and the value.
 */
class IdempotencyPolicyTest {

    @SuppressWarnings("unused")
    static class Annotated {
        @Idempotent
        void defaults() {
        }

        @Idempotent(scope = " lab:daily ", key = {"order.id", "site"}, window = "5m",
                windowAlignment = WindowAlignment.FIXED, zone = " Asia/Tokyo ", ttl = "30m", lease = "2m",
                onInProgress = OnInProgress.THROW, waitTimeout = "250ms", onStoreError = OnStoreError.FAIL_OPEN,
                failureTtl = "10s", noRetryFor = {IOException.class, TimeoutException.class}, version = "v2",
                store = " redis ", coalesce = false, storeTransaction = StoreTransaction.MANDATORY)
        void everything() {
        }
    }

    private static Idempotent annotation(String method) throws NoSuchMethodException {
        return Annotated.class.getDeclaredMethod(method).getAnnotation(Idempotent.class);
    }

    @Test
    void theDefaultsAreTheDocumentedOnes() throws Exception {
        for (IdempotencyPolicy p : List.of(IdempotencyPolicy.ofDefaults(),
                IdempotencyPolicy.from(annotation("defaults"), "Annotated#defaults"))) {
            assertEquals("", p.scope());
            assertEquals(List.of(), p.key());
            assertEquals(Duration.ZERO, p.window());
            assertEquals(WindowAlignment.SLIDING, p.windowAlignment());
            assertEquals(ZoneOffset.UTC, p.zone().normalized());
            assertEquals(Duration.ofHours(1), p.ttl());
            assertEquals(Duration.ofSeconds(30), p.lease());
            assertEquals(OnInProgress.WAIT, p.onInProgress());
            assertEquals(Duration.ofSeconds(10), p.waitTimeout());
            assertEquals(OnStoreError.FAIL_CLOSED, p.onStoreError());
            assertEquals(Duration.ZERO, p.failureTtl());
            assertEquals(List.of(), p.noRetryFor());
            assertEquals("", p.version());
            assertEquals("", p.store());
            assertTrue(p.coalesce());
            assertEquals(StoreTransaction.NONE, p.storeTransaction());
        }
        assertEquals("idempotent operation", IdempotencyPolicy.ofDefaults().operation());
    }

    @Test
    void everyAttributeOfTheAnnotationIsRead() throws Exception {
        IdempotencyPolicy p = IdempotencyPolicy.from(annotation("everything"), "Annotated#everything");
        assertEquals("Annotated#everything", p.operation());
        assertEquals("lab:daily", p.scope(), "trimmed");
        assertEquals(List.of("order.id", "site"), p.key());
        assertEquals(Duration.ofMinutes(5), p.window());
        assertEquals(WindowAlignment.FIXED, p.windowAlignment());
        assertEquals(ZoneId.of("Asia/Tokyo"), p.zone());
        assertEquals(Duration.ofMinutes(30), p.ttl());
        assertEquals(Duration.ofMinutes(2), p.lease());
        assertEquals(OnInProgress.THROW, p.onInProgress());
        assertEquals(Duration.ofMillis(250), p.waitTimeout());
        assertEquals(OnStoreError.FAIL_OPEN, p.onStoreError());
        assertEquals(Duration.ofSeconds(10), p.failureTtl());
        assertEquals(List.of(IOException.class, TimeoutException.class), p.noRetryFor());
        assertEquals("v2", p.version());
        assertEquals("redis", p.store(), "trimmed");
        assertFalse(p.coalesce());
        assertEquals(StoreTransaction.MANDATORY, p.storeTransaction());
    }

    @Test
    void aPolicyBuiltFromAnotherKeepsEveryAttributeItDoesNotChange() throws Exception {
        IdempotencyPolicy base = IdempotencyPolicy.from(annotation("everything"), "Annotated#everything");
        IdempotencyPolicy copy = IdempotencyPolicy.from(base).build();
        assertEquals(base.toString(), copy.toString());
        assertEquals(base.key(), copy.key());
        assertEquals(base.noRetryFor(), copy.noRetryFor());
        assertEquals(base.version(), copy.version());
        assertEquals(base.onInProgress(), copy.onInProgress());
        assertEquals(base.waitTimeout(), copy.waitTimeout());
        IdempotencyPolicy changed = IdempotencyPolicy.from(base).ttl("1h").build();
        assertEquals(Duration.ofHours(1), changed.ttl());
        assertEquals(base.window(), changed.window());
        assertEquals(Duration.ofMinutes(30), base.ttl(), "the base is immutable");
    }

    @Test
    void toStringShowsTheAttributesAndTheDefaultStore() throws Exception {
        assertEquals("IdempotencyPolicy[Jobs#run, scope=jobs, window=PT5M SLIDING, ttl=PT30M, lease=PT30S,"
                + " onInProgress=WAIT, waitTimeout=PT10S, onStoreError=FAIL_CLOSED, failureTtl=PT0S,"
                + " store=(default), coalesce=true, codec=(default), onUndecodable=FAIL, storeTransaction=NONE,"
                + " onAbandoned=TAKE_OVER]", IdempotencyPolicy.custom().operation("Jobs#run").scope("jobs")
                .window("5m").ttl("30m").build().toString());
        assertTrue(IdempotencyPolicy.from(annotation("everything"), "A#b").toString().contains("store=redis,"));
    }

    @Test
    void aTtlEqualToTheWindowIsEnoughAndAShorterOneIsRefused() {
        assertEquals(Duration.ofMinutes(5), IdempotencyPolicy.custom().window("5m").ttl("5m").build().ttl());
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> IdempotencyPolicy.custom().operation("Jobs#run").window("5m").ttl("299s").build());
        assertEquals("Jobs#run: @Idempotent(ttl = \"PT4M59S\") is shorter than window = \"PT5M\"; the record must be"
                + " kept at least as long as duplicates are suppressed", e.getMessage());
    }

    @Test
    void aFixedAlignmentNeedsAWindow() {
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> IdempotencyPolicy.custom().operation("Jobs#run").windowAlignment(WindowAlignment.FIXED).build());
        assertEquals("Jobs#run: @Idempotent(windowAlignment = \"FIXED\") needs a window, such as window = \"1d\"",
                e.getMessage());
        assertEquals(WindowAlignment.FIXED, IdempotencyPolicy.custom().windowAlignment(WindowAlignment.FIXED)
                .window("1d").ttl("1d").build().windowAlignment());
    }

    @Test
    void durationsThatMustBePositiveRefuseZeroAndTheOthersAcceptIt() {
        for (String attribute : List.of("ttl", "lease", "failureTtl")) {
            IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                    () -> set(IdempotencyPolicy.custom().operation("Jobs#run"), attribute, "0s"), attribute);
            assertEquals("Jobs#run: @Idempotent(" + attribute + " = \"PT0S\") must be longer than zero",
                    e.getMessage());
            assertThrows(IdempotencyConfigurationException.class,
                    () -> set(IdempotencyPolicy.custom(), attribute, Duration.ofSeconds(-1)), attribute);
        }
        for (String attribute : List.of("window", "waitTimeout")) {
            set(IdempotencyPolicy.custom(), attribute, "0s");
            IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                    () -> set(IdempotencyPolicy.custom().operation("Jobs#run"), attribute, Duration.ofMillis(-1)),
                    attribute);
            assertEquals("Jobs#run: @Idempotent(" + attribute + " = \"PT-0.001S\") must not be negative",
                    e.getMessage());
        }
        assertEquals(Duration.ZERO, IdempotencyPolicy.custom().waitTimeout("0s").build().waitTimeout());
        assertEquals(Duration.ofMillis(1), IdempotencyPolicy.custom().lease(Duration.ofMillis(1)).build().lease());
    }

    private static void set(IdempotencyPolicy.Builder b, String attribute, Object value) {
        boolean text = value instanceof String;
        switch (attribute) {
            case "ttl" -> {
                if (text) {
                    b.ttl((String) value);
                } else {
                    b.ttl((Duration) value);
                }
            }
            case "lease" -> {
                if (text) {
                    b.lease((String) value);
                } else {
                    b.lease((Duration) value);
                }
            }
            case "failureTtl" -> {
                if (text) {
                    b.failureTtl((String) value);
                } else {
                    b.failureTtl((Duration) value);
                }
            }
            case "window" -> {
                if (text) {
                    b.window((String) value);
                } else {
                    b.window((Duration) value);
                }
            }
            case "waitTimeout" -> {
                if (text) {
                    b.waitTimeout((String) value);
                } else {
                    b.waitTimeout((Duration) value);
                }
            }
            default -> throw new AssertionError(attribute);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"ttl", "lease", "failureTtl", "window", "waitTimeout"})
    void aBadDurationNamesTheOperationTheAttributeAndTheValue(String attribute) {
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> set(IdempotencyPolicy.custom().operation("Jobs#run"), attribute, "5 minutes"));
        assertEquals("Jobs#run: @Idempotent(" + attribute + " = \"5 minutes\") is not a duration; write 250ms, 10s,"
                + " 5m, 1h, 1d or ISO-8601 such as PT5M", e.getMessage());
    }

    @Test
    void aZoneIsARegionOrAnOffset() {
        assertEquals(ZoneOffset.ofHours(9), IdempotencyPolicy.custom().zone("+09:00").build().zone());
        assertEquals(ZoneId.of("Europe/Paris"), IdempotencyPolicy.custom().zone(ZoneId.of("Europe/Paris")).build()
                .zone());
        IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                () -> IdempotencyPolicy.custom().operation("Jobs#run").zone("Mars/Olympus"));
        assertEquals("Jobs#run: @Idempotent(zone = \"Mars/Olympus\") is not a time zone (use a region such as"
                + " \"Asia/Tokyo\" or an offset such as \"+09:00\")", e.getMessage());
    }

    @Test
    void keyNamesMustNotBeBlank() {
        assertEquals(List.of("a", "b.c"), IdempotencyPolicy.custom().key("a", "b.c").build().key());
        IdempotencyConfigurationException blank = assertThrows(IdempotencyConfigurationException.class,
                () -> IdempotencyPolicy.custom().operation("Jobs#run").key("a", " "));
        assertEquals("Jobs#run: @Idempotent(key = \" \") names an empty parameter", blank.getMessage());
        assertThrows(IdempotencyConfigurationException.class, () -> IdempotencyPolicy.custom().key("a", null));
        assertThrows(IdempotencyConfigurationException.class, () -> IdempotencyPolicy.custom().key(""));
    }

    @Test
    void noRetryForTypesAreCopiedAndNeverNull() {
        @SuppressWarnings({"unchecked", "rawtypes"}) // a generic array can only be made raw
        Class<? extends Throwable>[] types = new Class[] {IOException.class};
        IdempotencyPolicy.Builder b = IdempotencyPolicy.custom().noRetryFor(types);
        types[0] = TimeoutException.class;
        assertEquals(List.of(IOException.class), b.build().noRetryFor());
        assertThrows(NullPointerException.class, () -> IdempotencyPolicy.custom().noRetryFor(IOException.class, null));
    }
}
