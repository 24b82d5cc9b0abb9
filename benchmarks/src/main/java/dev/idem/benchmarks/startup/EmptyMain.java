package dev.idem.benchmarks.startup;

/** What {@link QuickStart} is compared with: a JVM started on the same class path that prints one line. */
public final class EmptyMain {
    private EmptyMain() {
    }

    public static void main(String[] args) {
        System.out.println("created 0 time(s)");
    }
}
