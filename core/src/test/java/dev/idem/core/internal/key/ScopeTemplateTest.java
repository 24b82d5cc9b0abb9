package dev.idem.core.internal.key;

import dev.idem.Normalize;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SEMANTICS.md section 1: a scope is a literal, or has {@code {name}} / {@code {name.path}} placeholders filled from
 * parameters, and only plain identifiers may enter the key in clear.
 */
class ScopeTemplateTest {

    enum Region {
        EU {
            @Override
            public String toString() {
                return "Europe (not the name)";
            }
        },
        US
    }

    record Tenant(String id, Region region) {
    }

    /** Placeholders name parameters by position: {@code p0}, {@code p1}, ...; paths are resolved on a Tenant. */
    private final List<String> seen = new ArrayList<>();
    private final Function<String, KeySource> byPosition = placeholder -> {
        seen.add(placeholder);
        int dot = placeholder.indexOf('.');
        String name = dot < 0 ? placeholder : placeholder.substring(0, dot);
        if (!name.matches("p\\d")) {
            throw new IllegalArgumentException("placeholder {" + placeholder + "} names no parameter");
        }
        PropertyPath path = dot < 0 ? PropertyPath.WHOLE : PropertyPath.resolve(Tenant.class,
                placeholder.substring(dot + 1));
        return new KeySource(name.charAt(1) - '0', name, path, new Normalize[0]);
    };

    private String render(String scope, Object... args) {
        return ScopeTemplate.parse(scope, byPosition).render(args);
    }

    @Test
    void aScopeWithoutBracesIsALiteralRenderedAsIs() {
        ScopeTemplate literal = ScopeTemplate.parse("gemini-lab:daily content", byPosition);
        assertTrue(literal.isLiteral());
        assertSame(literal.render(new Object[] {"ignored"}), literal.render(new Object[0]), "the same String");
        assertEquals("gemini-lab:daily content", literal.render(new Object[0]));
        assertTrue(seen.isEmpty(), "no placeholder was looked up");
    }

    @Test
    void placeholdersAreFilledFromTheParametersWithTheLiteralTextAroundThem() {
        ScopeTemplate template = ScopeTemplate.parse("{p0}:orders:{p1}-x", byPosition);
        assertFalse(template.isLiteral());
        assertEquals(List.of("p0", "p1"), seen);
        assertEquals("acme:orders:eu-x", template.render(new Object[] {"acme", "eu"}));
        assertEquals("globex:orders:us-x", template.render(new Object[] {"globex", "us"}));
        assertEquals("acme", render("{p0}", "acme"));
        assertEquals("acmeeu", render("{p0}{p1}", "acme", "eu"));
        assertEquals("t:acme", render("t:{p0}", "acme"));
    }

    @Test
    void aPlaceholderMayFollowAPathIntoTheParameter() {
        Tenant tenant = new Tenant("t-42", Region.US);
        assertEquals("t-42:US:orders", render("{p0.id}:{p0.region}:orders", tenant));
    }

    @Test
    void numbersBooleansUuidsAndEnumsByNameArePlainIdentifiers() {
        UUID id = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");
        assertEquals("7", render("{p0}", 7));
        assertEquals("1.50", render("{p0}", new BigDecimal("1.50")));
        assertEquals("true", render("{p0}", true));
        assertEquals(id.toString(), render("{p0}", id));
        assertEquals("EU", render("{p0}", Region.EU), "an enum by its name, never its toString");
        assertEquals("a.b_c-d@e", render("{p0}", new StringBuilder("a.b_c-d@e")));
        assertEquals("x".repeat(128), render("{p0}", "x".repeat(128)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "acme:evil", "with space", "a/b", "ümlaut", "a{b}", "semi;colon"})
    void textThatIsNotAPlainIdentifierIsRefused(String value) {
        UnencodableValueException e = assertThrows(UnencodableValueException.class, () -> render("{p0}:x", value));
        assertEquals("scope placeholder {p0} must be a plain identifier (letters, digits, . _ - @, at most 128),"
                + " got a String that is not one", e.getMessage());
    }

    @Test
    void longValuesNullsAndOtherTypesAreRefusedSayingWhat() {
        assertThrows(UnencodableValueException.class, () -> render("{p0}", "x".repeat(129)));
        UnencodableValueException nothing = assertThrows(UnencodableValueException.class, () -> render("{p0}",
                (Object) null));
        assertTrue(nothing.getMessage().endsWith("got null"), nothing.getMessage());
        UnencodableValueException date = assertThrows(UnencodableValueException.class,
                () -> render("{p0}", LocalDate.of(2026, 3, 1)));
        assertTrue(date.getMessage().endsWith("got a LocalDate that is not one"), date.getMessage());
        UnencodableValueException map = assertThrows(UnencodableValueException.class,
                () -> render("{p0.id}", new Tenant(null, Region.EU)));
        assertTrue(map.getMessage().startsWith("scope placeholder {p0.id} must"), map.getMessage());
        assertThrows(UnencodableValueException.class, () -> render("{p0}", Map.of("a", "b")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"}", "a}b", "a}{p0}", "{p0}}", "}{p0}"})
    void anUnmatchedClosingBraceIsRefused(String scope) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ScopeTemplate.parse(scope, byPosition));
        assertEquals("scope \"" + scope + "\" has an unmatched '}'", e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"{", "a{b", "{p0}:{p1", "x{"})
    void anUnmatchedOpeningBraceIsRefused(String scope) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ScopeTemplate.parse(scope, byPosition));
        assertEquals("scope \"" + scope + "\" has an unmatched '{'", e.getMessage());
    }

    @Test
    void aPlaceholderThatNamesNoParameterIsRefusedByTheLookup() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ScopeTemplate.parse("{tenant}:orders", byPosition));
        assertEquals("placeholder {tenant} names no parameter", e.getMessage());
    }
}
