package dev.idem.core.internal.retry;

import dev.idem.core.ClassLoading;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * Which methods the retry readers call on a client's objects: public ones, found through public superclasses and
 * interfaces, never static or void ones, and a method that throws reads as absent.
 *
 * <p>{@link PublicGetters} remembers each class's lookups for the JVM's life, so every case asks about classes
 * loaded afresh ({@link #fresh}): an earlier caller's answer for the same class cannot stand in for this lookup.
 */
class PublicGettersTest {

    /** A client's base exception: the status getter lives here, not in the class thrown. */
    public static class BaseException extends RuntimeException {
        public int statusCode() {
            return 503;
        }
    }

    public static class DerivedException extends BaseException {
        public DerivedException() {
        }
    }

    /** The getter is declared by a public interface only; the class behind it is not public. */
    public interface HasCode {
        int code();
    }

    public static class CodeHolder {
        public CodeHolder() {
        }

        public HasCode make() {
            return new HiddenCode();
        }

        public RuntimeException makeDerived() {
            return new HiddenDerived();
        }
    }

    /** A client's own subclass, not public, of its public exception. */
    private static class HiddenDerived extends BaseException {
    }

    private static class HiddenCode implements HasCode {
        @Override
        public int code() {
            return 429;
        }
    }

    /** Methods of the right names that are no getters: static, void, or throwing. */
    public static class NoGetters {
        public NoGetters() {
        }

        public static int statusCode() {
            return 500;
        }

        public void status() {
        }

        public int getStatus() {
            throw new IllegalStateException("not connected");
        }

        public int code() {
            return 404;
        }
    }

    /** A headers object answering a one-argument lookup by String, and one answering only by Object. */
    public static class Headers {
        public Headers() {
        }

        public String firstValue(String name) {
            return "first:" + name;
        }

        public String get(Object name) {
            return "get:" + name;
        }
    }

    /** Each call loads {@code nested}'s class (with the rest of this class's nest) in a loader of its own. */
    private static Object fresh(String nested) throws Exception {
        String host = PublicGettersTest.class.getName();
        ClassLoader loader = ClassLoading.childFirst("fresh", name -> name.startsWith(host));
        return loader.loadClass(host + "$" + nested).getConstructor().newInstance();
    }

    @Test
    void aGetterInheritedFromAPublicSuperclassIsCalled() throws Exception {
        assertEquals(503, PublicGetters.call(fresh("DerivedException"), "statusCode", null));
    }

    @Test
    void aGetterOfAPublicSuperclassIsCalledOnASubclassThatIsNotPublic() throws Exception {
        Object holder = fresh("CodeHolder");
        Object hidden = holder.getClass().getMethod("makeDerived").invoke(holder);
        assertEquals(503, PublicGetters.call(hidden, "statusCode", null));
    }

    @Test
    void aGetterOfAPublicInterfaceIsCalledOnAClassThatIsNotPublic() throws Exception {
        Object holder = fresh("CodeHolder");
        Object hidden = holder.getClass().getMethod("make").invoke(holder);
        assertEquals(429, PublicGetters.call(hidden, "code", null));
    }

    @Test
    void staticVoidAndThrowingMethodsReadAsAbsentAndTheFirstRealGetterAnswers() throws Exception {
        Object target = fresh("NoGetters");
        assertSame(PublicGetters.ABSENT, PublicGetters.call(target, "statusCode", null), "static");
        assertSame(PublicGetters.ABSENT, PublicGetters.call(target, "status", null), "void");
        assertSame(PublicGetters.ABSENT, PublicGetters.call(target, "getStatus", null), "throws");
        assertSame(PublicGetters.ABSENT, PublicGetters.call(target, "nothingOfThatName", null), "absent");
        assertEquals(404, PublicGetters.first(fresh("NoGetters"), "statusCode", "status", "getStatus", "code"));
        assertSame(PublicGetters.ABSENT, PublicGetters.first(fresh("NoGetters"), "statusCode", "status"));
        assertSame(PublicGetters.ABSENT, PublicGetters.call(null, "code", null), "no target");
    }

    @Test
    void aOneArgumentLookupTakesAStringAndElseAnObject() throws Exception {
        Object headers = fresh("Headers");
        assertEquals("first:Retry-After", PublicGetters.call(headers, "firstValue", "Retry-After"));
        assertEquals("get:Retry-After", PublicGetters.call(headers, "get", "Retry-After"), "get(Object)");
        assertSame(PublicGetters.ABSENT, PublicGetters.call(headers, "firstValue", null),
                "a one-argument method is no getter");
        assertEquals("v", PublicGetters.call(Map.of("Retry-After", "v"), "get", "Retry-After"), "Map.get");
    }
}
