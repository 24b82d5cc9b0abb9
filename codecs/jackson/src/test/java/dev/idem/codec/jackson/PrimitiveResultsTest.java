package dev.idem.codec.jackson;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A method declared to return a primitive gets its result back as that primitive's own wrapper, with its value: a
 * replay of an {@code int} method is an {@code Integer}, never a {@code Long} or a {@code Double} that JSON's numbers
 * would give without the declared type; a {@code void} method's result is null.
 */
class PrimitiveResultsTest {
    static Stream<Arguments> primitives() {
        return Stream.of(
                Arguments.of(int.class, 7),
                Arguments.of(long.class, 7_000_000_000L),
                Arguments.of(boolean.class, true),
                Arguments.of(double.class, 2.5d),
                Arguments.of(float.class, 2.5f),
                Arguments.of(short.class, (short) 7),
                Arguments.of(byte.class, (byte) 7),
                Arguments.of(char.class, 'x'));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("primitives")
    void aPrimitiveResultIsReplayedAsItsOwnWrapper(Class<?> declared, Object value) throws Exception {
        Object replayed = Codecs.roundTrip(Codecs.codec(declared), value);
        assertEquals(value.getClass(), replayed.getClass(), "the wrapper of " + declared);
        assertEquals(value, replayed);
    }

    @Test
    void aVoidMethodsResultIsNull() throws Exception {
        assertNull(Codecs.roundTrip(Codecs.codec(void.class), null));
    }
}
