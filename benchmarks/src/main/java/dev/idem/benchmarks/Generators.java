package dev.idem.benchmarks;

import com.trendyol.jdempotent.core.annotation.JdempotentRequestPayload;
import com.trendyol.jdempotent.core.annotation.JdempotentResource;
import dev.idem.Idempotent;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The same small method, plain, under Idem and under the peer. Each counts how often its body really ran. */
final class Generators {
    private Generators() {
    }

    static class Plain implements Generator {
        @Override
        public String generate(GenerateRequest request) {
            return ARTICLE;
        }
    }

    static class Idem implements Generator {
        final AtomicInteger runs = new AtomicInteger();

        @Override
        @Idempotent(scope = "bench:generate", ttl = "1h")
        public String generate(GenerateRequest request) {
            runs.incrementAndGet();
            return ARTICLE;
        }
    }

    /** A new key every call, kept for the default hour (the benchmark starts a new engine every iteration). */
    static class IdemFresh implements Generator {
        @Override
        @Idempotent(scope = "bench:fresh")
        public String generate(GenerateRequest request) {
            return ARTICLE;
        }
    }

    /** A new key every call with a 1 s ttl: the store expires and evicts records as fast as they are written. */
    static class IdemFreshExpiring implements Generator {
        @Override
        @Idempotent(scope = "bench:fresh-expiring", ttl = "1s")
        public String generate(GenerateRequest request) {
            return ARTICLE;
        }
    }

    static class Peer implements Generator {
        final AtomicInteger runs = new AtomicInteger();

        @Override
        @JdempotentResource(cachePrefix = "bench", ttl = 1, ttlTimeUnit = TimeUnit.HOURS)
        public String generate(@JdempotentRequestPayload GenerateRequest request) {
            runs.incrementAndGet();
            return ARTICLE;
        }
    }

    /** A record of ten fields; the codec is the one under measurement. */
    interface ReportSource {
        Report10 report(GenerateRequest request);
    }

    static class JsonReports implements ReportSource {
        final AtomicInteger runs = new AtomicInteger();

        @Override
        @Idempotent(scope = "bench:json", ttl = "1h", codec = "json")
        public Report10 report(GenerateRequest request) {
            runs.incrementAndGet();
            return Report10.of(request);
        }
    }

    static class JavaReports implements ReportSource {
        final AtomicInteger runs = new AtomicInteger();

        @Override
        @Idempotent(scope = "bench:java", ttl = "1h", codec = "java")
        public Report10 report(GenerateRequest request) {
            runs.incrementAndGet();
            return Report10.of(request);
        }
    }
}
