package dev.idem.benchmarks;

import dev.idem.Idempotent;

import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** Argument shapes users have, for the key-derivation benchmarks. The methods are planned, never called. */
public class KeyShapes {
    public record TenFields(String id, String name, int quantity, long amount, boolean urgent, double weight,
                            String site, LocalDate day, UUID customer, List<String> tags) {
    }

    @Idempotent(scope = "keys:scalars")
    public String twoScalars(String topic, int day) {
        return topic;
    }

    @Idempotent(scope = "keys:record")
    public String record(TenFields order) {
        return order.id();
    }

    @Idempotent(scope = "keys:prompt")
    public String prompt(String prompt) {
        return prompt;
    }

    @Idempotent(scope = "keys:map")
    public String map(Map<String, String> attributes) {
        return "";
    }
}
