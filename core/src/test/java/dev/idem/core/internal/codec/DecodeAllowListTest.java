package dev.idem.core.internal.codec;

import org.junit.jupiter.api.Test;

import java.io.ObjectInputFilter;
import java.io.ObjectInputFilter.Status;
import java.io.Serializable;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URL;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SEMANTICS.md section 7: decoding never instantiates a class outside an allow-list derived from the method's
 * declared return type plus JDK value types.
 */
class DecodeAllowListTest {

    record Author(String name) implements Serializable {
    }

    record Article(String title, Author author, List<Tag> tags) implements Serializable {
    }

    record Tag(String label) implements Serializable {
    }

    /** Reached only through a transient or static field, so never part of a stored result. */
    record Secret(String value) implements Serializable {
    }

    static class Holder implements Serializable {
        private static final long serialVersionUID = 1L;
        Note[] notes;
        transient Secret cache;
        static Secret shared;
    }

    static class Note implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    static class Audited implements Serializable {
        private static final long serialVersionUID = 1L;
        Footnote footnote;
    }

    static class AuditedArticle extends Audited {
        private static final long serialVersionUID = 1L;
    }

    static class Footnote implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    sealed interface Shape extends Serializable permits Circle, Square {
    }

    record Circle(double r) implements Shape {
    }

    record Square(double side) implements Shape {
    }

    abstract static class Animal implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    static class Cat extends Animal {
        private static final long serialVersionUID = 1L;
    }

    static class Box<T extends Shape> implements Serializable {
        private static final long serialVersionUID = 1L;
        T content;
    }

    static class Gadget implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    /** Declared types to derive allow-lists from, as a method's generic return type gives them. */
    @SuppressWarnings("unused")
    static final class Declared {
        List<Article> articles;
        Map<String, Optional<Tag>> tagsByName;
        List<? extends Shape> shapes;
        List<Author>[] pages;
        Box<Square> box;
        Animal animal;
        Cat cat;

        static Type of(String field) {
            try {
                return Declared.class.getDeclaredField(field).getGenericType();
            } catch (NoSuchFieldException e) {
                throw new AssertionError(e);
            }
        }
    }

    @Test
    void theDeclaredTypeAndEverythingItsFieldsReachAreAllowed() {
        DecodeAllowList list = DecodeAllowList.forType(Article.class);
        assertTrue(list.allows(Article.class));
        assertTrue(list.allows(Author.class), "a field's type");
        assertTrue(list.allows(Tag.class), "a field's type argument");
        assertTrue(list.allows(Article[].class), "arrays of allowed types");
        assertFalse(list.allows(Gadget.class));
        assertFalse(list.allows(Secret.class));
    }

    @Test
    void typeArgumentsWildcardsGenericArraysAndTypeVariableBoundsAreFollowed() {
        DecodeAllowList articles = DecodeAllowList.forType(Declared.of("articles"));
        assertTrue(articles.allows(Article.class));
        assertTrue(articles.allows(Author.class));
        assertFalse(articles.allows(Gadget.class));
        assertTrue(DecodeAllowList.forType(Declared.of("tagsByName")).allows(Tag.class));
        assertTrue(DecodeAllowList.forType(Declared.of("shapes")).allows(Shape.class), "a wildcard's bound");
        assertTrue(DecodeAllowList.forType(Declared.of("pages")).allows(Author.class), "a generic array's element");
        DecodeAllowList box = DecodeAllowList.forType(Declared.of("box"));
        assertTrue(box.allows(Box.class));
        assertTrue(box.allows(Square.class), "a type argument");
        assertTrue(box.allows(Circle.class), "the field T's bound, a sealed interface, covers its members");
    }

    @Test
    void fieldsOfSuperclassesAndArrayFieldsAreFollowedButTransientAndStaticFieldsAreNot() {
        DecodeAllowList holder = DecodeAllowList.forType(Holder.class);
        assertTrue(holder.allows(Note.class), "a Note[] field");
        assertFalse(holder.allows(Secret.class), "only reachable through transient and static fields");
        DecodeAllowList audited = DecodeAllowList.forType(AuditedArticle.class);
        assertTrue(audited.allows(Footnote.class), "a superclass's field");
        assertFalse(audited.allows(Audited.class), "a concrete superclass is not itself the declared type");
    }

    @Test
    void subclassesAreAllowedOnlyForTheApplicationsAbstractTypesAndInterfaces() {
        assertTrue(DecodeAllowList.forType(Shape.class).allows(Circle.class));
        assertTrue(DecodeAllowList.forType(Declared.of("animal")).allows(Cat.class));
        assertFalse(DecodeAllowList.forType(Declared.of("cat")).allows(Animal.class));
        assertFalse(DecodeAllowList.forType(Audited.class).allows(AuditedArticle.class),
                "a subclass of a concrete declared type is not the declared type");
        assertFalse(DecodeAllowList.forType(Author.class).allows(Circle.class));
        // Object covers everything by assignability, but it is the JDK's and opens nothing.
        DecodeAllowList objects = DecodeAllowList.forType(Object.class);
        assertFalse(objects.allows(Gadget.class));
    }

    @Test
    void theJdksValueTypesAreAllowedAndItsOtherClassesAreNot() throws Exception {
        DecodeAllowList list = DecodeAllowList.forType(Author.class);
        for (Class<?> value : List.of(String.class, Boolean.class, Character.class, Integer.class, Long.class,
                Double.class, Number.class, Enum.class, Record.class, Object.class, BigDecimal.class,
                LocalDate.class, UUID.class, URI.class, ArrayList.class, HashMap.class, Optional.class,
                ConcurrentHashMap.class, AtomicLong.class, int.class, byte[].class, long[][].class,
                String[].class)) {
            assertTrue(list.allows(value), value.getName());
        }
        for (Class<?> other : List.of(Thread.class, Class.class, Runtime.class, ProcessBuilder.class, URL.class,
                ReentrantLock.class, Level.class, java.util.prefs.AbstractPreferences.class,
                java.util.jar.JarFile.class, java.util.zip.ZipFile.class, java.io.File.class,
                java.lang.invoke.MethodType.class, Class.forName("java.sql.Timestamp"), Gadget.class,
                Gadget[].class)) {
            assertFalse(list.allows(other), other.getName());
        }
    }

    @Test
    void theFilterAllowsRejectsAndBoundsTheStream() {
        DecodeAllowList list = DecodeAllowList.forType(Article.class);
        assertEquals(Status.ALLOWED, list.checkInput(info(Article.class, 1, 1, -1)));
        assertEquals(Status.REJECTED, list.checkInput(info(Gadget.class, 1, 1, -1)));
        assertEquals(Status.UNDECIDED, list.checkInput(info(null, 1, 1, -1)), "no class: a reference or a block");
        assertEquals(Status.UNDECIDED, list.checkInput(info(null, 64, 1_000_000, 50_000_000)), "at the bounds");
        assertEquals(Status.REJECTED, list.checkInput(info(null, 65, 1, -1)), "nested deeper than 64");
        assertEquals(Status.REJECTED, list.checkInput(info(null, 1, 1_000_001, -1)), "more than a million refs");
        assertEquals(Status.REJECTED, list.checkInput(info(byte[].class, 1, 1, 50_000_001)), "a huge array");
        assertEquals(Status.REJECTED, list.checkInput(info(Article.class, 65, 1, -1)), "bounds before classes");
    }

    private static ObjectInputFilter.FilterInfo info(Class<?> c, long depth, long references, long arrayLength) {
        return new ObjectInputFilter.FilterInfo() {
            @Override
            public Class<?> serialClass() {
                return c;
            }

            @Override
            public long arrayLength() {
                return arrayLength;
            }

            @Override
            public long depth() {
                return depth;
            }

            @Override
            public long references() {
                return references;
            }

            @Override
            public long streamBytes() {
                return 0;
            }
        };
    }
}
