package dev.idem.core;

import dev.idem.IdempotencyConfigurationException;
import dev.idem.Idempotent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Idem#advise}: the front-end contract on the process's engine, which follows {@link Idem#install}. */
class ProcessEngineHandleTest {
    static final class Service {
        final AtomicInteger runs = new AtomicInteger();

        @Idempotent(scope = "process-handle")
        String generate(String topic) {
            return topic + ":" + runs.incrementAndGet();
        }

        String unannotated(String topic) {
            return topic;
        }
    }

    private final Service service = new Service();
    private final IdemEngine first = IdemEngine.create(IdemSettings.custom().namespace("first").build());
    private final IdemEngine second = IdemEngine.create(IdemSettings.custom().namespace("second").build());
    private final IdemEngine previous = Idem.install(first);

    @AfterEach
    void restore() {
        Idem.install(previous); // null: the next use creates the process's engine from the environment again
        first.close();
        second.close();
    }

    private Object call(IdempotentMethod handle, String topic) throws Throwable {
        return handle.call(new Object[] {topic}, () -> service.generate(topic));
    }

    @Test
    void aHandleRunsEachCallOnTheEngineInstalledWhenItStarts() throws Throwable {
        Method generate = Service.class.getDeclaredMethod("generate", String.class);
        IdempotentMethod handle = Idem.advise(generate);
        assertSame(handle, Idem.advise(generate), "one handle per method");
        assertSame(generate, handle.method());

        assertEquals("rust:1", call(handle, "rust"));
        assertEquals("rust:1", call(handle, "rust"), "replayed by the first engine");

        Idem.install(second);
        assertEquals("rust:2", call(handle, "rust"), "the second engine has its own records: it runs again");
        assertEquals("rust:2", call(handle, "rust"));

        Idem.install(first);
        assertEquals("rust:1", call(handle, "rust"), "back on the first engine, its result again");
        assertEquals(2, service.runs.get());
    }

    @Test
    void aMethodTheEngineRefusesIsRefusedAtEveryCallOfItsHandle() throws NoSuchMethodException {
        IdempotentMethod handle = Idem.advise(Service.class.getDeclaredMethod("unannotated", String.class));

        for (int call = 0; call < 2; call++) {
            IdempotencyConfigurationException e = assertThrows(IdempotencyConfigurationException.class,
                    () -> handle.call(new Object[] {"x"}, () -> service.unannotated("x")));
            assertTrue(e.getMessage().contains("unannotated"), e.getMessage());
        }
    }

    @Test
    void aClosedEngineIsNotKeptReachableByTheHandlesItMadeForLivingClasses() throws Throwable {
        WeakReference<IdemEngine> closed = adviseCallAndClose();

        // The engine keeps its handles in a ClassValue whose entries live in Service's class, which lives on.
        ClassLoading.assertCollected(closed, "an engine closed and dropped after advising a method");
    }

    private WeakReference<IdemEngine> adviseCallAndClose() throws Throwable {
        IdemEngine engine = IdemEngine.create(IdemSettings.custom().namespace("dropped").build());
        try (engine) {
            call(engine.advise(Service.class.getDeclaredMethod("generate", String.class)), "go");
        }
        return new WeakReference<>(engine);
    }

    @Test
    void uninstallPutsThePreviousEngineBackOnlyWhileItsOwnIsStillInstalled() {
        IdemEngine before = Idem.install(second);
        assertSame(first, before);
        assertTrue(Idem.uninstall(second, before), "still installed: undone");
        assertSame(first, Idem.engine());

        IdemEngine replaced = Idem.install(second);
        Idem.install(first); // someone else's since
        assertEquals(false, Idem.uninstall(second, replaced), "no longer installed: left as it is");
        assertSame(first, Idem.engine());
    }
}
