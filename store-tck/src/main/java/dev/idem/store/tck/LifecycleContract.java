package dev.idem.store.tck;

import dev.idem.IdempotencyStoreException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.List;

import static dev.idem.store.tck.IdempotencyStoreTck.LEASE;
import static dev.idem.store.tck.IdempotencyStoreTck.TTL;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Lifecycle: an unreachable store reports {@link dev.idem.IdempotencyStoreException} from every operation; closing
 * twice is harmless.
 */
abstract class LifecycleContract extends ContractGroup {
    LifecycleContract(IdempotencyStoreTck kit) {
        super(kit);
    }

    @Test
    void anUnreachableStoreReportsIdempotencyStoreExceptionFromEveryOperation() {
        String key = key("outage");
        long token = acquire(key, "a");
        makeUnreachable(store());

        List<Executable> operations = List.of(
                () -> claim(key, "b"),
                () -> store().complete(key, token, new byte[] {1}, TTL),
                () -> store().fail(key, token, new byte[] {1}, TTL),
                () -> store().release(key, token),
                () -> store().renew(key, token, LEASE),
                () -> store().get(key),
                () -> store().delete(key));
        for (Executable operation : operations) {
            assertThrows(IdempotencyStoreException.class, operation);
        }
    }

    @Test
    void closingTwiceIsHarmless() {
        store().close();

        assertDoesNotThrow(store()::close, "closing a closed store must do nothing");
        assertThrows(IdempotencyStoreException.class, () -> store().get(key("closed")),
                "a store closed twice must still refuse work");
    }
}
