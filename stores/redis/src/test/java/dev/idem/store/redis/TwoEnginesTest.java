package dev.idem.store.redis;

import dev.idem.core.IdemEngine;
import dev.idem.core.IdemSettings;
import dev.idem.core.sharing.TwoEnginesContract;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Map;

/**
 * {@link TwoEnginesContract} with {@code idem.store=redis}: two engines over one server, as two processes would be.
 */
class TwoEnginesTest extends TwoEnginesContract {
    @RegisterExtension
    static final TestRedis redis = new TestRedis();

    @Override
    protected IdemEngine engine() {
        return IdemEngine.create(IdemSettings.fromProperties(Map.of("idem.store", "redis", "idem.redis.uri",
                redis.uri(), "idem.redis.timeout", "2s")));
    }
}
