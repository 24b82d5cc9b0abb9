package dev.idem.core.internal.key;

import java.util.Arrays;
import java.util.Objects;

/**
 * The composite values (collections, maps, object arrays, objects) an encoding is inside, outermost first, so that
 * a cycle and a nesting deeper than {@value #MAX_DEPTH} levels are each refused with an
 * {@link UnencodableValueException} rather than a stack overflow.
 *
 * <p>It references an argument only while the argument is being encoded: {@link #leave()} drops each value as the
 * encoding climbs back out of it, and {@link #clear()} drops what an encoding that failed half-way left. Mutable,
 * confined to its encoder's thread.
 */
final class EnclosingValues {
    static final int MAX_DEPTH = 64;

    private Object[] values; // made at the first composite: most keys are scalars
    private int depth;
    /** The deepest {@link #depth} since the last clear, so {@link #clear()} empties exactly the slots used. */
    private int maxDepth;

    /** How many values the encoding is inside. */
    int depth() {
        return depth;
    }

    /** Enters {@code composite}; refuses it if the encoding is already inside it, or {@value #MAX_DEPTH} deep. */
    void enter(Object composite) {
        if (values == null) {
            values = new Object[8];
        } else if (depth == values.length && depth < MAX_DEPTH) {
            values = Arrays.copyOf(values, Math.min(MAX_DEPTH, depth * 2));
        }
        for (int i = 0; i < depth; i++) {
            if (values[i] == composite) {
                throw new UnencodableValueException("the value contains a cycle through a "
                        + composite.getClass().getName());
            }
        }
        if (depth == MAX_DEPTH) {
            throw new UnencodableValueException("the value is nested deeper than " + MAX_DEPTH + " levels");
        }
        values[depth++] = composite;
        maxDepth = Math.max(maxDepth, depth);
    }

    /** Leaves the innermost value entered. */
    void leave() {
        values[--depth] = null;
    }

    /** Drops every value still held (only a failure half-way leaves any) and starts at no depth. */
    void clear() {
        if (values != null && depth > 0) {
            Arrays.fill(values, 0, Math.min(values.length, maxDepth), null);
        }
        depth = 0;
        maxDepth = 0;
    }

    /** Whether no value is held (for tests: a released encoder must hold none). */
    boolean holdsNone() {
        return values == null || Arrays.stream(values).allMatch(Objects::isNull);
    }
}
