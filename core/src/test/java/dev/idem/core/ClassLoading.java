package dev.idem.core;

import java.io.IOException;
import java.io.InputStream;
import java.lang.ref.WeakReference;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * For tests of what the engine keeps of an application's classes: a loader that defines its own copies of some
 * classes, as a restarting or redeploying application does, and the check that a loader (or any object) was collected.
 */
public final class ClassLoading {
    /** How long {@link #assertCollected} collects garbage before it fails. */
    private static final long WAIT_SECONDS = 10;

    private ClassLoading() {
    }

    /**
     * A loader named {@code name} that defines the classes {@code definesItself} accepts from the class files of
     * this class's loader (child first), and leaves every other class to that loader.
     */
    public static ClassLoader childFirst(String name, Predicate<String> definesItself) {
        return new ChildFirst(name, definesItself);
    }

    /** Collects garbage (under some allocation pressure) until {@code reference} is cleared; fails after 10 s. */
    public static void assertCollected(WeakReference<?> reference, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (reference.get() != null) {
            if (System.nanoTime() > deadline) {
                fail(what + " is still reachable after " + WAIT_SECONDS + " s of garbage collections");
            }
            System.gc();
            byte[][] pressure = new byte[64][];
            for (int i = 0; i < pressure.length; i++) {
                pressure[i] = new byte[64 * 1024];
            }
            Thread.sleep(10);
        }
        assertNull(reference.get());
    }

    private static final class ChildFirst extends ClassLoader {
        private final Predicate<String> definesItself;

        ChildFirst(String name, Predicate<String> definesItself) {
            super(name, ClassLoading.class.getClassLoader());
            this.definesItself = definesItself;
        }

        @Override
        protected Class<?> loadClass(String className, boolean resolve) throws ClassNotFoundException {
            if (!definesItself.test(className)) {
                return super.loadClass(className, resolve);
            }
            synchronized (getClassLoadingLock(className)) {
                Class<?> loaded = findLoadedClass(className);
                if (loaded != null) {
                    return loaded;
                }
                String resource = className.replace('.', '/') + ".class";
                try (InputStream in = getParent().getResourceAsStream(resource)) {
                    if (in == null) {
                        throw new ClassNotFoundException("no class file " + resource);
                    }
                    byte[] bytes = in.readAllBytes();
                    return defineClass(className, bytes, 0, bytes.length);
                } catch (IOException e) {
                    throw new ClassNotFoundException(className, e);
                }
            }
        }
    }
}
