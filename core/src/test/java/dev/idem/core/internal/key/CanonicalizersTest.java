package dev.idem.core.internal.key;

import dev.idem.core.KeyCanonicalizer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** KeyCanonicalizer's contract: the closest registered type wins; a registered interface covers implementations. */
class CanonicalizersTest {

    private static <T> KeyCanonicalizer<T> tagging(Class<T> type, String tag) {
        return new KeyCanonicalizer<>() {
            @Override
            public Class<T> type() {
                return type;
            }

            @Override
            public Object canonicalize(T value) {
                return tag + ":" + value;
            }
        };
    }

    @Test
    void noCanonicaliserIsTheSharedEmptySetAndLeavesValuesAlone() {
        Canonicalizers none = Canonicalizers.of(List.of());
        assertSame(Canonicalizers.NONE, none);
        assertTrue(none.isEmpty());
        Object value = new Object();
        assertSame(value, none.canonicalize(value));
    }

    @Test
    void anExactTypeWinsOverAnAssignableOneRegisteredBeforeIt() {
        Canonicalizers c = Canonicalizers.of(List.of(tagging(CharSequence.class, "chars"),
                tagging(String.class, "string")));
        assertFalse(c.isEmpty());
        assertEquals("string:x", c.canonicalize("x"));
        assertEquals("chars:y", c.canonicalize(new StringBuilder("y")), "an interface covers its implementations");
    }

    @Test
    void amongAssignableTypesTheFirstRegisteredWins() {
        Canonicalizers c = Canonicalizers.of(List.of(tagging(Number.class, "number"),
                tagging(Comparable.class, "comparable")));
        assertEquals("number:5", c.canonicalize(5));
        assertEquals("comparable:z", c.canonicalize("z"));
    }

    @Test
    void aValueNoCanonicaliserMatchesIsEncodedAsItself() {
        Canonicalizers c = Canonicalizers.of(List.of(tagging(Thread.class, "thread")));
        Object value = List.of("a");
        assertSame(value, c.canonicalize(value));
        assertEquals("thread:" + Thread.currentThread(), c.canonicalize(Thread.currentThread()));
    }

    @Test
    void theRegistrationIsCopied() {
        List<KeyCanonicalizer<?>> registered = new ArrayList<>();
        registered.add(tagging(String.class, "first"));
        Canonicalizers c = Canonicalizers.of(registered);
        registered.set(0, tagging(String.class, "second"));
        assertEquals("first:x", c.canonicalize("x"));
    }
}
