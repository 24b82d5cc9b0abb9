package dev.idem.benchmarks;

import dev.idem.core.Idem;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;

/** Every benchmark runs on a fresh engine with the defaults (in-memory store, no listeners). */
final class Engines {
    private Engines() {
    }

    static IdemEngine installFresh() {
        IdemEngine engine = IdemEngine.create(IdemSettings.custom().namespace("bench").build());
        IdemEngine previous = Idem.install(engine);
        if (previous != null) {
            previous.close();
        }
        return engine;
    }
}
