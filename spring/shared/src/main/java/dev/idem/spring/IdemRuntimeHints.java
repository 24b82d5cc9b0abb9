package dev.idem.spring;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * The resources the starter and the engine read at run time, for an image built ahead of time: the starter's
 * description of the Spring Boot it is built for (read by the version check as the context starts) and an
 * application's {@code idem.properties}, which the process's engine reads from the class path when there is one
 * (woven or instrumented methods run on it until the context lends its own).
 */
final class IdemRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        hints.resources().registerPattern(SpringBootGeneration.RESOURCE);
        hints.resources().registerPattern("idem.properties");
    }
}
