package dev.idem.core.internal.key;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.Reader;
import java.io.StringReader;
import java.io.StringWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.Socket;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.ByteBuffer;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.Period;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.ChronoField;
import java.time.temporal.TemporalAccessor;
import java.time.temporal.TemporalField;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Currency;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SEMANTICS.md section 2: which values have a canonical form (and which form), and which are not data: streams,
 * callbacks, connections, threads and the JDK's non-value classes.
 */
class ValueKindTest {

    enum Plan {
        FREE,
        PRO {
            @Override
            public String toString() {
                return "pro";
            }
        }
    }

    record Point(int x, int y) {
    }

    static class Plain {
        String name;
    }

    abstract static class Shape {
    }

    interface Callback {
        void call();
    }

    @FunctionalInterface
    interface Listener {
        void on(String event);
    }

    /** A temporal of the application's own: not one of the JDK's value types. */
    static final class Stardate implements TemporalAccessor {
        @Override
        public boolean isSupported(TemporalField field) {
            return false;
        }

        @Override
        public long getLong(TemporalField field) {
            return 0;
        }
    }

    /**
     * The kind of {@code type}, classified afresh. {@link ValueKind#of} caches one answer per class for the JVM's
     * life, so a test that asked it would check whatever an earlier caller cached: in a mutation-testing minion,
     * which runs many mutants of ValueKind in one JVM, that is a classification made by another mutant.
     */
    private static ValueKind kind(Class<?> type) {
        try {
            Method classify = ValueKind.class.getDeclaredMethod("classify", Class.class);
            classify.setAccessible(true);
            return (ValueKind) classify.invoke(null, type);
        } catch (InvocationTargetException e) {
            throw new AssertionError(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    /** {@code Point} and {@code Plain} loaded afresh: classes no earlier caller can have looked up. */
    private static List<Class<?>> freshClasses() throws Exception {
        URL testClasses = ValueKindTest.class.getProtectionDomain().getCodeSource().getLocation();
        URLClassLoader isolated = new URLClassLoader(new URL[] {testClasses}, null);
        return List.of(isolated.loadClass(Point.class.getName()), isolated.loadClass(Plain.class.getName()));
    }

    @Test
    void theCachedKindIsTheClassifiedOne() throws Exception {
        List<Class<?>> types = new ArrayList<>(List.of(String.class, Point.class, Plain.class, Thread.class,
                int[].class));
        types.addAll(freshClasses());
        for (Class<?> type : types) {
            assertEquals(kind(type), ValueKind.of(type), type.getName());
            assertSame(ValueKind.of(type), ValueKind.of(type));
        }
    }

    @Test
    void scalarsHaveTheirOwnKinds() throws Exception {
        assertEquals(ValueKind.BOOLEAN, kind(Boolean.class));
        for (Class<?> integral : List.of(Integer.class, Long.class, Short.class, Byte.class)) {
            assertEquals(ValueKind.INTEGRAL, kind(integral), integral.getName());
        }
        assertEquals(ValueKind.BIG_INTEGER, kind(BigInteger.class));
        assertEquals(ValueKind.FLOATING, kind(Double.class));
        assertEquals(ValueKind.FLOATING, kind(Float.class));
        assertEquals(ValueKind.DECIMAL, kind(BigDecimal.class));
        assertEquals(ValueKind.CHAR, kind(Character.class));
        assertEquals(ValueKind.STRING, kind(String.class));
        assertEquals(ValueKind.STRING, kind(StringBuilder.class));
        assertEquals(ValueKind.ENUM, kind(Plan.class));
        assertEquals(ValueKind.ENUM, kind(Plan.PRO.getClass()), "a constant with a body");
        assertEquals(ValueKind.ENUM, kind(DayOfWeek.class));
        assertEquals(ValueKind.UUID, kind(UUID.class));
        assertEquals(ValueKind.SCALAR, kind(URI.class));
        assertEquals(ValueKind.SCALAR, kind(Locale.class));
        assertEquals(ValueKind.SCALAR, kind(Currency.class));
    }

    @Test
    void theJdksTimeTypesAreTemporalAndOthersAreNot() {
        for (Class<?> time : List.of(Instant.class, LocalDate.class, Duration.class, Period.class, ZoneOffset.class,
                ZoneId.of("Asia/Tokyo").getClass())) {
            assertEquals(ValueKind.TEMPORAL, kind(time), time.getName());
        }
        assertEquals(ValueKind.UNENCODABLE, kind(Stardate.class), "an application's own TemporalAccessor");
        assertEquals(ValueKind.ENUM, kind(ChronoField.class));
    }

    @Test
    void arraysOptionalsAndCollectionsHaveTheirKinds() {
        assertEquals(ValueKind.BYTES, kind(byte[].class));
        assertEquals(ValueKind.PRIMITIVE_ARRAY, kind(int[].class));
        assertEquals(ValueKind.PRIMITIVE_ARRAY, kind(char[].class));
        assertEquals(ValueKind.OBJECT_ARRAY, kind(String[].class));
        assertEquals(ValueKind.OBJECT_ARRAY, kind(byte[][].class));
        assertEquals(ValueKind.OPTIONAL, kind(Optional.class));
        assertEquals(ValueKind.PRIMITIVE_OPTIONAL, kind(OptionalInt.class));
        assertEquals(ValueKind.PRIMITIVE_OPTIONAL, kind(OptionalLong.class));
        assertEquals(ValueKind.PRIMITIVE_OPTIONAL, kind(OptionalDouble.class));
        assertEquals(ValueKind.SET, kind(TreeSet.class));
        assertEquals(ValueKind.SET, kind(Set.of(1).getClass()));
        assertEquals(ValueKind.LIST, kind(ArrayList.class));
        assertEquals(ValueKind.LIST, kind(ArrayDeque.class), "any other Collection, in its order");
        assertEquals(ValueKind.MAP, kind(HashMap.class));
    }

    @Test
    void theApplicationsRecordsAndPlainObjectsAreEncodedByTheirFields() {
        assertEquals(ValueKind.RECORD, kind(Point.class));
        assertEquals(ValueKind.PLAIN_OBJECT, kind(Plain.class));
    }

    @Test
    void whatIsNotDataHasNoCanonicalForm() throws Exception {
        Runnable lambda = () -> { };
        Callback unannotated = () -> { }; // a lambda of an interface not marked @FunctionalInterface
        for (Class<?> notData : List.of(Thread.class, Object.class, Stream.of(1).getClass(), Socket.class,
                ByteArrayInputStream.class, StringReader.class, StringWriter.class, CompletableFuture.class,
                ThreadPoolExecutor.class, lambda.getClass(), unannotated.getClass(),
                Shape.class, ByteBuffer.class, Random.class, Class.class,
                // JDK classes outside the boot loader, one per package prefix that marks the JDK's own
                Class.forName("java.sql.Timestamp"), Class.forName("javax.sql.rowset.serial.SerialBlob"),
                Class.forName("jdk.dynalink.NamedOperation"), Class.forName("sun.security.ec.ECKeyFactory"),
                Class.forName("com.sun.net.httpserver.HttpsConfigurator"))) {
            assertEquals(ValueKind.UNENCODABLE, kind(notData), notData.getName());
        }
    }

    @Test
    void streamsCallbacksAndResourcesAreNeverDataAsDeclaredTypes() {
        for (Class<?> type : List.of(Stream.class, IntStream.class, Iterator.class, InputStream.class, Reader.class,
                Socket.class, Thread.class, CompletableFuture.class, AutoCloseable.class, Runnable.class,
                Consumer.class, Listener.class, ClassLoader.class)) {
            assertTrue(ValueKind.isNeverData(type), type.getName());
        }
        for (Class<?> type : List.of(int.class, String.class, Object.class, List.class, Callback.class, Point.class,
                Plain.class, Optional.class)) {
            assertFalse(ValueKind.isNeverData(type), type.getName());
        }
    }

    @Test
    void theJdkIsRecognisedByLoaderAndPackage() throws Exception {
        assertTrue(ValueKind.isJdk(String.class));
        assertTrue(ValueKind.isJdk(Class.forName("java.sql.Timestamp")));
        assertFalse(ValueKind.isJdk(Point.class));
        assertFalse(ValueKind.isJdk(ValueKindTest.class));
    }

    @Test
    void aTypeEntryIsComputedOncePerClassAndCarriesItsKind() throws Exception {
        for (Class<?> fresh : freshClasses()) {
            TypeEntry entry = TypeEntry.of(fresh);
            assertSame(entry, TypeEntry.of(fresh));
            assertEquals(fresh, entry.type);
            assertEquals(fresh.isRecord() ? ValueKind.RECORD : ValueKind.PLAIN_OBJECT, entry.kind);
            assertEquals(fresh.isRecord() ? 2 : 1, entry.layout().fields.length);
        }
        TypeEntry entry = TypeEntry.of(Point.class);
        assertSame(entry, TypeEntry.of(Point.class));
        assertEquals(Point.class, entry.type);
        assertEquals(ValueKind.RECORD, entry.kind);
        ObjectLayout layout = entry.layout();
        assertNotNull(layout);
        assertSame(layout, entry.layout(), "built once, then reused");
        assertEquals(ValueKind.STRING, TypeEntry.of(String.class).kind);
    }

    /** ObjectLayout: the fields a record or plain object is encoded by. */
    static class Base {
        String name = "base";
        int shared = 1;
        static String constant = "skipped";
        transient String cache = "skipped";
    }

    static class Derived extends Base {
        String alpha = "a";
        int shared = 2; // hides Base.shared: both are encoded, ordered by declaring class
    }

    record Reordered(String zulu, int alpha, String mike) {
    }

    /** Extends a JDK class whose private fields Idem cannot open. */
    static class SeededRandom extends Random {
        private static final long serialVersionUID = 1L;
        String label = "x";
    }

    @Test
    void aRecordIsLaidOutByItsComponentsSortedByName() {
        ObjectLayout layout = new ObjectLayout(Reordered.class);
        assertEquals(List.of("alpha", "mike", "zulu"), names(layout));
        assertNull(layout.inaccessible);
        // the first field's prefix carries the object's tag and field count
        assertArrayEquals(new byte[] {CanonicalEncoder.OBJECT, 0, 0, 0, 3, 0, 0, 0, 5, 'a', 'l', 'p', 'h', 'a'},
                layout.prefixes[0]);
        assertArrayEquals(new byte[] {0, 0, 0, 4, 'z', 'u', 'l', 'u'}, layout.prefixes[2]);
    }

    @Test
    void aPlainObjectIsLaidOutByItsAndItsSuperclassesInstanceFieldsSortedByName() {
        ObjectLayout layout = new ObjectLayout(Derived.class);
        assertEquals(List.of("alpha", "name", "shared", "shared"), names(layout), "no static, no transient field");
        assertEquals(Base.class, layout.fields[2].getDeclaringClass(), "a hidden field before the one hiding it,"
                + " by declaring class name");
        assertEquals(Derived.class, layout.fields[3].getDeclaringClass());
        assertNull(layout.inaccessible);
    }

    @Test
    void aFieldThatCannotBeOpenedIsReportedWithHowToFixIt() {
        ObjectLayout layout = new ObjectLayout(SeededRandom.class);
        assertNotNull(layout.inaccessible);
        assertTrue(layout.inaccessible.getMessage().startsWith("cannot read field "), layout.inaccessible.getMessage());
        assertTrue(layout.inaccessible.getMessage().contains(SeededRandom.class.getName()));
        assertTrue(layout.inaccessible.getMessage().contains("register a canonicaliser"));
    }

    @Test
    void anEmptyClassHasNoFields() {
        ObjectLayout layout = new ObjectLayout(Callback.class);
        assertEquals(0, layout.fields.length);
        assertEquals(0, layout.prefixes.length);
    }

    private static List<String> names(ObjectLayout layout) {
        List<String> names = new ArrayList<>();
        for (var f : layout.fields) {
            names.add(f.getName());
        }
        return names;
    }
}
