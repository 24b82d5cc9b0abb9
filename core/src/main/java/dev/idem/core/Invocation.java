package dev.idem.core;

/** The original method body, as a weaving front-end hands it to the engine. */
@FunctionalInterface
public interface Invocation {
    Object proceed() throws Throwable;
}
