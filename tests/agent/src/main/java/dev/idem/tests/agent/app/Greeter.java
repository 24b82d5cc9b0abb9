package dev.idem.tests.agent.app;

/** Implemented by a class that only a child class loader sees. */
public interface Greeter {
    String greet(String name);

    int runs();
}
