package dev.idem.samples;

import dev.idem.core.Idem;
import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.IdempotencyEvent;
import dev.idem.core.IdempotencyEventType;
import dev.idem.core.WeavingCheck;

import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs the retry-storm day twice, plainly and through {@code @Idempotent}, on the embedded in-memory store, and
 * prints what each run cost and published.
 */
public final class RetryStormDemo {
    private RetryStormDemo() {
    }

    public static void main(String[] args) throws Exception {
        // Refuse to run the demo (or an application) with an annotated method that is not woven.
        WeavingCheck.requireWoven(IdempotentArticlePipeline.class);
        Map<IdempotencyEventType, AtomicLong> events = new ConcurrentHashMap<>();
        IdemEngine engine = IdemEngine.create(IdemSettings.custom().namespace("demo")
                .listener((IdempotencyEvent e) -> events.computeIfAbsent(e.type(), t -> new AtomicLong())
                        .incrementAndGet())
                .build());
        Idem.install(engine);
        try {
            RetryStorm.Outcome plain = RetryStorm.replay(false);
            RetryStorm.Outcome idem = RetryStorm.replay(true);
            System.out.println(table(plain, idem, events));
        } finally {
            engine.close();
        }
    }

    static String table(RetryStorm.Outcome plain, RetryStorm.Outcome idem, Map<IdempotencyEventType, AtomicLong> ev) {
        long coalesced = count(ev, IdempotencyEventType.COALESCED);
        long replayed = count(ev, IdempotencyEventType.REPLAYED);
        StringBuilder out = new StringBuilder();
        out.append("Retry-storm simulator: a 429 storm, a lost response, a requeued job, four workers on one cron\n")
           .append("minute and a reused job id, against a generation API billed $")
           .append(String.format("%.2f", GenerationApi.PRICE_PER_CALL)).append(" per call.\n\n");
        String row = "%-36s %8s %13s%n";
        out.append(String.format(row, "", "plain", "@Idempotent"));
        out.append(String.format(row, "worker calls (with retries)", plain.workerCalls(), idem.workerCalls()));
        out.append(String.format(row, "upstream attempts (requests)", plain.upstreamAttempts(),
                idem.upstreamAttempts()));
        out.append(String.format(row, "  answered 429", plain.rateLimited(), idem.rateLimited()));
        out.append(String.format(row, "  retried inside the boundary", "-",
                count(ev, IdempotencyEventType.RETRY)));
        out.append(String.format(row, "operations (billed generations)", plain.billedCalls(), idem.billedCalls()));
        out.append(String.format(row, "duplicates suppressed", "-", coalesced + replayed));
        out.append(String.format(row, "  coalesced (joined a running call)", "-", coalesced));
        out.append(String.format(row, "  replayed (stored result)", "-", replayed));
        out.append(String.format(row, "conflicts refused", plain.conflicts(), idem.conflicts()));
        out.append(String.format(row, "cost", money(plain.cost()), money(idem.cost())));
        out.append(String.format(row, "cost saved", "", money(plain.cost() - idem.cost())));
        out.append("articles published per topic\n");
        TreeSet<String> topics = new TreeSet<>(plain.publishedByTopic().keySet());
        topics.addAll(idem.publishedByTopic().keySet());
        for (String topic : topics) {
            out.append(String.format(row, "  " + topic, plain.publishedByTopic().getOrDefault(topic, 0),
                    idem.publishedByTopic().getOrDefault(topic, 0)));
        }
        return out.toString();
    }

    private static long count(Map<IdempotencyEventType, AtomicLong> events, IdempotencyEventType type) {
        AtomicLong n = events.get(type);
        return n == null ? 0 : n.get();
    }

    private static String money(double dollars) {
        return String.format("$%.2f", dollars);
    }
}
