package dev.idem.codec.jackson;

import dev.idem.codec.UnsupportedResultTypeException;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Type;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A type variable the caller chooses is refused wherever the declared result type hides it: in a wildcard's bound,
 * in a generic array's component, in another variable's bound. Each is a result whose stored JSON cannot say what
 * the variable was at the call.
 */
class HiddenTypeVariablesTest {
    interface Shapes<T> {
        List<? extends T> wildcard();

        <S> S[] array();

        <R extends List<S>, S> R boundOfABound();
    }

    @Test
    void aVariableInAWildcardsBoundIsRefused() throws Exception {
        assertRefusedNaming(Shapes.class.getMethod("wildcard").getGenericReturnType(), "T is a type variable");
    }

    @Test
    void aVariableAsAGenericArraysComponentIsRefused() throws Exception {
        assertRefusedNaming(Shapes.class.getMethod("array").getGenericReturnType(), "S is a type variable");
    }

    @Test
    void aVariableInAnotherVariablesBoundIsRefused() throws Exception {
        assertRefusedNaming(Shapes.class.getMethod("boundOfABound").getGenericReturnType(), "S is a type variable");
    }

    private static void assertRefusedNaming(Type type, String part) {
        UnsupportedResultTypeException e = assertThrows(UnsupportedResultTypeException.class,
                () -> new JsonResultCodecProvider().forType(type, HiddenTypeVariablesTest.class.getClassLoader()));
        assertTrue(e.getMessage().contains(part), () -> "\"" + part + "\" not in: " + e.getMessage());
    }
}
