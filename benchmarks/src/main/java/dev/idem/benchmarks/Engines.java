package dev.idem.benchmarks;

import com.trendyol.jdempotent.core.aspect.IdempotentAspect;
import com.trendyol.jdempotent.core.datasource.InMemoryIdempotentRepository;
import dev.idem.core.Idem;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;

/**
 * Every benchmark runs on a fresh engine with the defaults (in-memory store, no listeners).
 *
 * <p>Conventions for the benchmarks to come (JDBC, Redis): one class per subject, the same
 * {@link Generator}/{@link GenerateRequest} shape called through the interface, a floor or peer measured in the same
 * class where one exists, an engine built here with the store under test registered as the default, and its
 * scores named so that {@link Report} can put a ratio next to them.
 */
final class Engines {
    private Engines() {
    }

    static IdemEngine installFresh() {
        IdemEngine engine = IdemEngine.create(IdemSettings.custom().namespace("bench")
                // The json codec is on the benchmarks' class path (for CallBenchmarks.json*), which would make it the
                // default; the other benchmarks keep measuring the core's java codec.
                .defaultCodec("java").build());
        IdemEngine previous = Idem.install(engine);
        if (previous != null) {
            previous.close();
        }
        return engine;
    }

    /** Gives the peer's aspect (Jdempotent's, binary-woven) a new, empty in-memory repository. */
    static void emptyPeerRepository() throws ReflectiveOperationException {
        IdempotentAspect aspect = (IdempotentAspect) IdempotentAspect.class.getMethod("aspectOf").invoke(null);
        aspect.setIdempotentRepository(new InMemoryIdempotentRepository());
    }
}
