package dev.idem.core;

/**
 * The original method body, as a weaving front-end hands it to the engine. The engine calls {@link #proceed()} once
 * per attempt: once, or again for each retry an {@code @Idempotent(retry = @Retry(...))} allows, possibly on another
 * thread for a method returning a {@code CompletionStage}; a front-end's invocation must allow that.
 */
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
