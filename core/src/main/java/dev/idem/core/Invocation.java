package dev.idem.core;

/** The original method body, as a weaving front-end hands it to the engine. */
@FunctionalInterface
public interface Invocation {
    /**
     * Runs the original method body once.
     *
     * @return what the body returned ({@code null} for {@code void})
     * @throws Throwable what the body threw, which the engine rethrows unchanged
     */
    Object proceed() throws Throwable;
}
