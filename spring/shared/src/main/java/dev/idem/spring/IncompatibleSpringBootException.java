package dev.idem.spring;

/** The application runs a Spring Boot generation this starter is not built for. */
public final class IncompatibleSpringBootException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final transient SpringBootGeneration builtFor;
    private final String running;

    IncompatibleSpringBootException(SpringBootGeneration builtFor, String running) {
        super(builtFor.starter() + " is built for Spring Boot " + builtFor.springBoot() + ".x, but this application"
                + " runs Spring Boot " + running + "; for Spring Boot " + builtFor.otherSpringBoot()
                + ".x use " + builtFor.otherStarter() + " instead");
        this.builtFor = builtFor;
        this.running = running;
    }

    /** {@return what to do: the dependency to use instead} */
    String action() {
        return "Replace the dependency dev.idem:" + builtFor.starter() + " with dev.idem:" + builtFor.otherStarter()
                + " (for Spring Boot " + builtFor.otherSpringBoot() + ".x), or run Spring Boot "
                + builtFor.springBoot() + ".x. The application runs " + running + ".";
    }
}
