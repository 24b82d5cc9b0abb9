package dev.idem.tests.agent.app;

import dev.idem.IdempotencyStoreException;
import dev.idem.store.ClaimOutcome;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.IdempotencyStore;
import dev.idem.store.IdempotencyStoreProvider;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** A store named "down" whose server is unreachable, to show the agent failing closed. */
public class DownStoreProvider implements IdempotencyStoreProvider {
    @Override
    public String name() {
        return "down";
    }

    @Override
    public IdempotencyStore create(Map<String, String> properties, Clock clock) {
        return new IdempotencyStore() {
            private IdempotencyStoreException down() {
                return new IdempotencyStoreException("connection refused");
            }

            @Override
            public ClaimOutcome claim(ClaimRequest request) {
                throw down();
            }

            @Override
            public boolean complete(String key, long token, byte[] result, Duration ttl) {
                throw down();
            }

            @Override
            public boolean fail(String key, long token, byte[] failure, Duration failureTtl) {
                throw down();
            }

            @Override
            public boolean release(String key, long token) {
                throw down();
            }

            @Override
            public boolean renew(String key, long token, Duration lease) {
                throw down();
            }

            @Override
            public Optional<IdempotencyRecord> get(String key) {
                throw down();
            }

            @Override
            public void delete(String key) {
                throw down();
            }

            @Override
            public void close() {
                // nothing to release: it never connected
            }
        };
    }
}
