package dev.idem.benchmarks;

/**
 * The benchmarked method, behind an unannotated interface: the benchmarks call through it so that only the
 * implementations' execution join points are advised. (The peer's pointcut, {@code @annotation(...)}, would also
 * advise call sites under ajc, running its advice twice per call and making the comparison unfair to it.)
 */
public interface Generator {
    String ARTICLE = "A short article.";

    String generate(GenerateRequest request);
}
