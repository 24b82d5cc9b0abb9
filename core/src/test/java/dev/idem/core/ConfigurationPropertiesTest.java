package dev.idem.core;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.OnStoreError;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.math.BigInteger;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * SEMANTICS.md section 6 as properties (jqwik): any string given to a duration or configuration attribute is either
 * taken for exactly what it says, or refused with an {@link IdempotencyConfigurationException} naming the attribute
 * and the value: never another exception, never a silent default. The expected meaning comes from an oracle written
 * from the grammar of docs/configuration.md, not from the parser under test.
 */
class ConfigurationPropertiesTest {
    private static final Pattern SHORT = Pattern.compile("(\\d{1,15})(ms|s|m|h|d)");

    enum DurationAttribute {
        WINDOW((b, v) -> b.window(v), IdempotencyPolicy::window),
        TTL((b, v) -> b.ttl(v), IdempotencyPolicy::ttl),
        LEASE((b, v) -> b.lease(v), IdempotencyPolicy::lease),
        WAIT_TIMEOUT((b, v) -> b.waitTimeout(v), IdempotencyPolicy::waitTimeout),
        FAILURE_TTL((b, v) -> b.failureTtl(v), IdempotencyPolicy::failureTtl);

        final BiFunction<IdempotencyPolicy.Builder, String, IdempotencyPolicy.Builder> set;
        final Function<IdempotencyPolicy, Duration> get;

        DurationAttribute(BiFunction<IdempotencyPolicy.Builder, String, IdempotencyPolicy.Builder> set,
                          Function<IdempotencyPolicy, Duration> get) {
            this.set = set;
            this.get = get;
        }

        String attribute() {
            String[] words = name().toLowerCase(Locale.ROOT).split("_");
            return words.length == 1 ? words[0] : words[0] + Character.toUpperCase(words[1].charAt(0))
                    + words[1].substring(1);
        }
    }

    @Property(tries = 300)
    void everyDurationAttributeTakesItsValueOrRefusesItByName(@ForAll DurationAttribute attribute,
                                                              @ForAll("durationLike") String text) {
        Duration meant = oracle(text);
        IdempotencyPolicy policy;
        try {
            // ttl large enough for any window, so only the attribute under test can be refused
            IdempotencyPolicy.Builder b = IdempotencyPolicy.custom().operation("Orders#create");
            if (attribute != DurationAttribute.TTL) {
                b.ttl(Duration.ofMillis(Long.MAX_VALUE));
            }
            policy = attribute.set.apply(b, text).build();
        } catch (IdempotencyConfigurationException e) {
            assertTrue(e.getMessage().contains("Orders#create") && e.getMessage().contains(attribute.attribute()),
                    e.getMessage());
            if (meant != null) {
                // a well-formed duration may still be refused, but only by a rule of the attribute (zero, order)
                assertTrue(e.getMessage().contains("zero") || e.getMessage().contains("shorter than"),
                        "a valid duration refused: " + e.getMessage());
            }
            return;
        } catch (RuntimeException e) {
            throw new AssertionError(attribute + " = \"" + text + "\" threw " + e, e);
        }
        if (meant == null) {
            fail(attribute + " = \"" + text + "\" was accepted as " + attribute.get.apply(policy));
        }
        assertEquals(meant, attribute.get.apply(policy), () -> attribute + " = \"" + text + "\"");
    }

    @Property(tries = 200)
    void zonesAreTakenOrRefusedByName(@ForAll("zoneLike") String text) {
        ZoneId meant;
        try {
            meant = ZoneId.of(text.trim());
        } catch (DateTimeException e) {
            meant = null;
        }
        try {
            assertEquals(meant, IdempotencyPolicy.custom().operation("Orders#create").zone(text).build().zone());
        } catch (IdempotencyConfigurationException e) {
            assertTrue(meant == null && e.getMessage().contains("zone") && e.getMessage().contains("Orders#create"),
                    e.getMessage());
        }
    }

    @Property(tries = 200)
    void onStoreErrorIsTakenOrRefusedByName(@ForAll("onStoreErrorLike") String text) {
        String spelled = text.trim().toLowerCase(Locale.ROOT).replace('_', '-');
        OnStoreError meant = spelled.equals("fail-open") ? OnStoreError.FAIL_OPEN
                : spelled.equals("fail-closed") ? OnStoreError.FAIL_CLOSED : null;
        try {
            assertEquals(meant, IdemSettings.fromProperties(Map.of(IdemSettings.ON_STORE_ERROR, text)).onStoreError());
        } catch (IdempotencyConfigurationException e) {
            assertTrue(meant == null && e.getMessage().contains(IdemSettings.ON_STORE_ERROR), e.getMessage());
        }
    }

    /** What docs/configuration.md's grammar says {@code text} means, or null when it is not a duration. */
    static Duration oracle(String text) {
        String t = text.trim();
        Matcher m = SHORT.matcher(t);
        if (m.matches()) {
            BigInteger perUnit = BigInteger.valueOf(switch (m.group(2)) {
                case "ms" -> 1L;
                case "s" -> 1_000L;
                case "m" -> 60_000L;
                case "h" -> 3_600_000L;
                default -> 86_400_000L;
            });
            BigInteger millis = new BigInteger(m.group(1)).multiply(perUnit);
            return millis.bitLength() < 64 ? Duration.ofMillis(millis.longValueExact()) : null;
        }
        if (t.startsWith("P") || t.startsWith("p")) {
            try {
                Duration d = Duration.parse(t);
                d.toMillis();
                return d.isNegative() ? null : d;
            } catch (DateTimeException | ArithmeticException e) {
                return null;
            }
        }
        return null;
    }

    @Provide
    Arbitrary<String> durationLike() {
        Arbitrary<String> digits = Arbitraries.strings().numeric().ofMinLength(0).ofMaxLength(20);
        Arbitrary<String> unit = Arbitraries.of("ms", "s", "m", "h", "d", "", "x", "S", "M", "D", "min", "sec", " s");
        Arbitrary<String> pad = Arbitraries.of("", " ", "\t", "\n");
        Arbitrary<String> shortForm = Combinators.combine(pad, Arbitraries.of("", "-", "+"), digits, unit, pad)
                .as((a, sign, n, u, b) -> a + sign + n + u + b);
        Arbitrary<String> iso = Combinators.combine(Arbitraries.of("P", "PT", "p", "pt", "-PT", "PT-", "P1D"),
                        digits, Arbitraries.of("S", "M", "H", "D", "", ".5S", "M5S", "X"))
                .as((p, n, u) -> p + n + u);
        return Arbitraries.oneOf(shortForm, iso, Arbitraries.strings().ofMaxLength(12));
    }

    @Provide
    Arbitrary<String> zoneLike() {
        return Arbitraries.oneOf(Arbitraries.of("UTC", "Asia/Tokyo", "+09:00", "Z", "GMT+1", " Europe/Paris ",
                "Mars/Olympus", "+25:00", "utc", "", " "), Arbitraries.strings().ofMaxLength(12));
    }

    @Provide
    Arbitrary<String> onStoreErrorLike() {
        return Arbitraries.oneOf(Arbitraries.of("fail-open", "FAIL_CLOSED", " Fail-Open ", "fail open", "open",
                "failopen", ""), Arbitraries.strings().ofMaxLength(12));
    }
}
