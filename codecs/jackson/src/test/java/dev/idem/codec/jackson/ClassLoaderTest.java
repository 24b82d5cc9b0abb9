package dev.idem.codec.jackson;

import dev.idem.codec.ResultCodec;
import dev.idem.codec.jackson.probe.Probe;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * Results decode into the classes of the method's own class loader, and a codec does not keep that loader alive
 * once the engine drops it (a redeployed application, a dev-tools restart).
 */
class ClassLoaderTest {
    private static URLClassLoader applicationLoader() {
        URL classes = Probe.class.getProtectionDomain().getCodeSource().getLocation();
        // The platform loader as parent: the probe's classes are this loader's own, not the test's.
        return new URLClassLoader("application", new URL[] {classes}, ClassLoader.getPlatformClassLoader());
    }

    @Test
    void resultsDecodeIntoTheMethodsOwnClasses() throws Exception {
        try (URLClassLoader loader = applicationLoader()) {
            Class<?> probe = loader.loadClass(Probe.class.getName());
            assertNotSame(Probe.class, probe);
            Type listOfProbes = listOf(probe);
            ResultCodec codec = new JsonResultCodecProvider().forType(listOfProbes, loader);
            Object value = List.of(probe.getConstructor(String.class, List.class).newInstance("p", List.of(1, 2)));
            List<?> replay = (List<?>) Codecs.roundTrip(codec, value);
            assertSame(probe, replay.get(0).getClass());
            assertEquals(List.of("p", List.of(1, 2)), components(replay.get(0)));
        }
    }

    @Test
    void aDroppedCodecDoesNotKeepItsClassLoaderAlive() throws Exception {
        WeakReference<ClassLoader> loader = planUseAndDrop();
        for (int i = 0; i < 100 && loader.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertNull(loader.get(), "the application's class loader is still reachable");
    }

    private static WeakReference<ClassLoader> planUseAndDrop() throws Exception {
        URLClassLoader loader = applicationLoader();
        Class<?> probe = loader.loadClass(Probe.class.getName());
        ResultCodec codec = new JsonResultCodecProvider().forType(listOf(probe), loader);
        Object value = List.of(probe.getConstructor(String.class, List.class).newInstance("p", List.of(1)));
        assertEquals(List.of("p", List.of(1)), components(((List<?>) Codecs.roundTrip(codec, value)).get(0)));
        loader.close();
        return new WeakReference<>(loader);
    }

    /**
     * The probe's components, read through its accessors. Not its equals(): a record's equals is linked through
     * java.lang.invoke, whose JDK caches keep the class's loader softly reachable, which would hide what this test
     * is about.
     */
    private static List<Object> components(Object probe) throws Exception {
        return List.of(probe.getClass().getMethod("name").invoke(probe), probe.getClass().getMethod("values").invoke(probe));
    }

    private static Type listOf(Class<?> element) {
        return new ParameterizedType() {
            @Override
            public Type[] getActualTypeArguments() {
                return new Type[] {element};
            }

            @Override
            public Type getRawType() {
                return List.class;
            }

            @Override
            public Type getOwnerType() {
                return null;
            }

            @Override
            public String getTypeName() {
                return "java.util.List<" + element.getName() + ">";
            }
        };
    }
}
