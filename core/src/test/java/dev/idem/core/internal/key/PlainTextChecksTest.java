package dev.idem.core.internal.key;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The loops that replace two regular expressions on the planning and call path agree with those expressions: the
 * whitespace a key's {@code COLLAPSE_WHITESPACE} collapses ({@code \s+}) and the values a scope placeholder accepts
 * ({@code [A-Za-z0-9._@-]{1,128}}). Keys already stored depend on the first being exactly what it was.
 */
class PlainTextChecksTest {
    private static final Pattern WHITESPACE = Pattern.compile("\\s+");
    private static final Pattern PLAIN_IDENTIFIER = Pattern.compile("[A-Za-z0-9._@-]{1,128}");

    @Provide
    Arbitrary<String> texts() {
        // the six characters \s matches, spaces it does not match (no-break, em, ideographic, zero-width), the
        // identifier's own characters and a few beyond it
        return Arbitraries.strings().withChars(" \t\n\u000B\f\r\u00A0\u2003\u3000\u200Bab.Z9_-@:/é{}")
                .ofMinLength(0).ofMaxLength(140);
    }

    @Property(tries = 2000)
    void collapsingWhitespaceIsWhatTheRegularExpressionDid(@ForAll("texts") String text) {
        assertEquals(WHITESPACE.matcher(text).replaceAll(" "), KeySource.collapseWhitespace(text));
    }

    @Property(tries = 2000)
    void aPlainIdentifierIsWhatTheRegularExpressionAccepted(@ForAll("texts") String text) {
        assertEquals(PLAIN_IDENTIFIER.matcher(text).matches(), ScopeTemplate.isPlainIdentifier(text));
    }

    @Test
    void textWithNothingToCollapseIsReturnedAsItIs() {
        String text = "a b c";
        assertSame(text, KeySource.collapseWhitespace(text));
        assertEquals("a b", KeySource.collapseWhitespace("a \t\r\n b"));
        assertEquals(" a ", KeySource.collapseWhitespace("\n\na\u000B\f"));
    }

    @Test
    void aPlainIdentifierHasOneToOneHundredAndTwentyEightCharacters() {
        assertFalse(ScopeTemplate.isPlainIdentifier(""));
        assertTrue(ScopeTemplate.isPlainIdentifier("a".repeat(128)));
        assertFalse(ScopeTemplate.isPlainIdentifier("a".repeat(129)));
    }
}
