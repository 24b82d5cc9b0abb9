package dev.idem.tests.agent.app;

import dev.idem.core.Idem;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.InMemoryIdempotencyStore;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The scenario "engine-replaced" of {@link AgentApp}. */
final class EngineReplacement {
    private EngineReplacement() {
    }

    /**
     * The process's engine replaced between calls ({@code Idem.install}): the agent keeps each method's plan, and
     * must plan it again in the new engine rather than answer from the old one's kept results.
     */
    static void run(ArticleService service) {
        service.generate("rust");
        service.generate("rust"); // replayed from the first engine's store, and kept by it
        service.generate("rust"); // answered from what the first engine keeps
        System.out.println("runs-before=" + service.runs.get());
        List<String> events = new CopyOnWriteArrayList<>();
        IdemEngine replacement = IdemEngine.create(IdemSettings.custom()
                .namespace("replacement")
                .store("memory", new InMemoryIdempotencyStore())
                .listener(e -> events.add(e.type() + ":" + e.detail()))
                .build());
        Idem.install(replacement).close();
        ArticleService.Article first = service.generate("rust"); // a new engine and store: the method runs
        service.generate("rust");
        ArticleService.Article kept = service.generate("rust");
        System.out.println("runs-after=" + service.runs.get());
        System.out.println("edition-after=" + first.edition());
        System.out.println("same-kept=" + (kept == service.generate("rust")));
        System.out.println("events=" + events);
    }
}
