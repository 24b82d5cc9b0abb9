package dev.idem.store.tck;

import dev.idem.store.IdempotencyStore;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

import java.time.Duration;
import java.util.Optional;

/**
 * The TCK over one {@link StoreVariant}, written as a store's own test would be. It is run only by
 * {@link IdempotencyStoreTckSelfTest} through the JUnit test kit, which names the variant in the configuration
 * parameter {@value #VARIANT}; surefire does not pick it up (the name does not end in Test), since most variants
 * are meant to fail.
 */
@ExtendWith(StoreVariantKit.Settings.Resolver.class)
class StoreVariantKit extends IdempotencyStoreTck {
    static final String VARIANT = "idem.tck.selftest.variant";
    /** {@code false} withholds the second instance, as a store that cannot be shared does. */
    static final String PEERS = "idem.tck.selftest.peers";

    private final Settings settings;
    private ReferenceStore.Backend backend;
    private ServerClock serverClock;

    StoreVariantKit(Settings settings) {
        this.settings = settings;
    }

    @Override
    protected IdempotencyStore createStore(MutableClock clock) {
        serverClock = settings.variant().time == StoreVariant.Time.SERVER_CLOCK ? new ServerClock() : null;
        backend = new ReferenceStore.Backend(serverClock);
        return settings.variant().open(backend, clock);
    }

    @Override
    protected StoreTime createStoreTime(MutableClock clock) throws Exception {
        return serverClock != null ? serverClock.asStoreTime() : super.createStoreTime(clock);
    }

    @Override
    protected Optional<IdempotencyStore> createPeerStore(MutableClock clock) {
        return settings.peers() ? Optional.of(settings.variant().open(backend, clock)) : Optional.empty();
    }

    @Override
    protected Duration signalledWithin() {
        return Duration.ofMillis(500); // the reference store signals during the write itself
    }

    record Settings(StoreVariant variant, boolean peers) {

        /** Reads the settings from the configuration parameters the test kit was given. */
        static final class Resolver implements ParameterResolver {
            @Override
            public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
                return parameter.getParameter().getType() == Settings.class;
            }

            @Override
            public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
                String variant = context.getConfigurationParameter(VARIANT).orElseThrow(() ->
                        new ParameterResolutionException("StoreVariantKit runs through IdempotencyStoreTckSelfTest,"
                                + " which sets " + VARIANT));
                boolean peers = context.getConfigurationParameter(PEERS).map(Boolean::parseBoolean).orElse(true);
                return new Settings(StoreVariant.valueOf(variant), peers);
            }
        }
    }
}
