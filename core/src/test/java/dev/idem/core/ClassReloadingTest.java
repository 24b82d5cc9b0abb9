package dev.idem.core;

import dev.idem.core.reload.Reloadable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.ref.WeakReference;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * One engine outliving the application classes it served (the engine or the agent in a parent loader, a dev-tools
 * restart, an application server redeploy): a reloaded class is served as the same operation, gets results of its
 * own classes, and the discarded class loader is not kept alive by the engine.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClassReloadingTest {
    private static final String RELOADED_PACKAGE = Reloadable.class.getPackageName() + ".";

    private final EngineFixture fx = new EngineFixture();

    @AfterEach
    void close() {
        fx.close();
    }

    /** A loader that defines the reloadable package's classes itself (child first), as a restarting loader does. */
    private static ClassLoader reloadingLoader() {
        return ClassLoading.childFirst("reloading", name -> name.startsWith(RELOADED_PACKAGE));
    }

    private Object call(ClassLoader loader, String method, String topic) throws Throwable {
        Class<?> type = Class.forName(Reloadable.class.getName(), true, loader);
        Object instance = type.getConstructor().newInstance();
        Method m = EngineFixture.find(type, method);
        return fx.engine.invoke(m, new Object[] {topic}, () -> {
            try {
                return m.invoke(instance, topic);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }

    @Test
    void aReloadedClassIsTheSameOperationAndGetsResultsOfItsOwnClasses() throws Throwable {
        ClassLoader first = reloadingLoader();
        ClassLoader second = reloadingLoader();

        Object made = call(first, "make", "rust");
        Object replayed = call(second, "make", "rust");

        assertSame(first, made.getClass().getClassLoader());
        assertSame(second, replayed.getClass().getClassLoader(), "decoded into the reloaded class, not the old one");
        assertEquals(made.toString(), replayed.toString(), "the stored result, not a second run");
        assertEquals(1, fx.count(IdempotencyEventType.EXECUTED));
        assertNotSame(made.getClass(), replayed.getClass());
    }

    @Test
    void aDiscardedClassLoaderIsCollectedWhileTheEngineLivesOn() throws Throwable {
        WeakReference<ClassLoader> discarded = useAndDiscard("name");

        ClassLoading.assertCollected(discarded, "a class loader whose classes the engine served");
        assertEquals("rust 1", call(reloadingLoader(), "name", "rust"), "the engine still answers");
    }

    @Test
    void aReloadLetsTheOldLoaderGoEvenWhenResultsAreInstancesOfItsClasses() throws Throwable {
        WeakReference<ClassLoader> discarded = useAndDiscard("make");

        // Another key: the reloaded code does not overwrite the old plan's local result by chance.
        Object afterReload = call(reloadingLoader(), "make", "go");

        assertEquals("Out[topic=go, edition=1]", afterReload.toString());
        ClassLoading.assertCollected(discarded, "the class loader of a reloaded class");
    }

    /** Calls {@code method} through a loader only this frame holds, so once it returns nothing of the test does. */
    private WeakReference<ClassLoader> useAndDiscard(String method) throws Throwable {
        ClassLoader loader = reloadingLoader();
        call(loader, method, "rust");
        call(loader, method, "rust"); // a replay too: the local results and the plan's caches are in use
        return new WeakReference<>(loader);
    }
}
