package dev.idem.codec.jackson;

import dev.idem.codec.ResultCodec;
import dev.idem.codec.ResultCodecProvider;
import dev.idem.codec.jackson.Codecs.TypeOf;
import dev.idem.codec.jackson.Model.Order;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProviderTest {
    @Test
    void isFoundByServiceLoaderAsJsonAboveTheJavaCodec() {
        List<ResultCodecProvider> found = new ArrayList<>();
        ServiceLoader.load(ResultCodecProvider.class).forEach(found::add);
        ResultCodecProvider json = found.stream().filter(p -> p.name().equals("json")).findFirst().orElseThrow();
        assertEquals(JsonResultCodecProvider.class, json.getClass());
        assertTrue(json.name().matches("[a-z0-9-]{1,16}"));
        assertEquals(1, json.formatVersion());
        assertEquals(100, json.priority());
    }

    @Test
    void refusesNullArguments() {
        JsonResultCodecProvider provider = new JsonResultCodecProvider();
        assertThrows(NullPointerException.class, () -> provider.forType(null, getClass().getClassLoader()));
        assertThrows(NullPointerException.class, () -> provider.forType(String.class, null));
    }

    /** One codec, many threads: Jackson's readers and writers are immutable, and so is the codec. */
    @Test
    void aCodecIsThreadSafe() throws Exception {
        ResultCodec codec = Codecs.codec(new TypeOf<Map<String, Order>>() {});
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int thread = t;
                runs.add(pool.submit(() -> {
                    for (int i = 0; i < 500; i++) {
                        Map<String, Order> value = Map.of("t" + thread + "-" + i, RoundTripTest.ORDER);
                        assertEquals(value, Codecs.roundTrip(codec, value));
                    }
                    return null;
                }));
            }
            for (Future<?> run : runs) {
                run.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
