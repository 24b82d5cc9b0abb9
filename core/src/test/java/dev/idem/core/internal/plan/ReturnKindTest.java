package dev.idem.core.internal.plan;

import org.junit.jupiter.api.Test;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.InputStream;
import java.io.Reader;
import java.io.Serializable;
import java.lang.reflect.Type;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.ListIterator;
import java.util.Optional;
import java.util.Spliterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.SubmissionPublisher;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SEMANTICS.md section 5, return types: values, void, Optional, generic types and CompletionStage/CompletableFuture
 * are supported; types that cannot be replayed are refused with an error that says why.
 */
class ReturnKindTest {

    record Article(String title) implements Serializable {
    }

    interface Shape {
    }

    @SuppressWarnings("unused")
    abstract static class Signatures {
        abstract Optional<Article> optional();

        abstract Optional<? extends Shape> optionalOfWildcard();

        abstract Optional<?> optionalOfAnything();

        @SuppressWarnings("rawtypes")
        abstract Optional raw();

        abstract CompletableFuture<List<Article>> future();

        abstract CompletionStage<Article> stage();

        abstract List<Article> list();

        static Type of(String name) throws NoSuchMethodException {
            return Signatures.class.getDeclaredMethod(name).getGenericReturnType();
        }
    }

    @Test
    void theKindFollowsTheRawReturnType() {
        assertEquals(ReturnKind.VOID, ReturnKind.of(void.class));
        assertEquals(ReturnKind.VOID, ReturnKind.of(Void.class));
        assertEquals(ReturnKind.OPTIONAL, ReturnKind.of(Optional.class));
        assertEquals(ReturnKind.FUTURE, ReturnKind.of(CompletionStage.class));
        assertEquals(ReturnKind.FUTURE, ReturnKind.of(CompletableFuture.class));
        assertEquals(ReturnKind.VALUE, ReturnKind.of(Article.class));
        assertEquals(ReturnKind.VALUE, ReturnKind.of(int.class));
        assertEquals(ReturnKind.VALUE, ReturnKind.of(Future.class), "another future type is a value (refused)");
    }

    @Test
    void whatIsStoredIsTheResultOrTheContentOfAnOptionalOrFuture() throws Exception {
        assertEquals(Void.class, ReturnKind.VOID.storedType(void.class));
        assertEquals(Signatures.of("list"), ReturnKind.VALUE.storedType(Signatures.of("list")));
        assertEquals(Article.class, ReturnKind.OPTIONAL.storedType(Signatures.of("optional")));
        assertEquals(Shape.class, ReturnKind.OPTIONAL.storedType(Signatures.of("optionalOfWildcard")));
        assertEquals(Object.class, ReturnKind.OPTIONAL.storedType(Signatures.of("optionalOfAnything")));
        assertEquals(Object.class, ReturnKind.OPTIONAL.storedType(Signatures.of("raw")));
        assertEquals(Signatures.of("list"), ReturnKind.FUTURE.storedType(Signatures.of("future")));
        assertEquals(Article.class, ReturnKind.FUTURE.storedType(Signatures.of("stage")));
    }

    @Test
    void replayableTypesHaveNoObjection() {
        for (Class<?> fine : List.of(String.class, Article.class, List.class, Optional.class, int.class,
                byte[].class, Object.class)) {
            assertNull(ReturnKind.whyNotReplayable(fine), fine.getName());
        }
    }

    @Test
    void streamsAndIteratorsAreConsumedOnce() {
        for (Class<?> once : List.of(Stream.class, IntStream.class, Iterator.class, ListIterator.class,
                Spliterator.class)) {
            String why = ReturnKind.whyNotReplayable(once);
            assertNotNull(why, once.getName());
            assertTrue(why.startsWith("a stream or iterator is consumed once"), why);
        }
    }

    @Test
    void inputStreamsAndReadersAreConsumedOnce() {
        for (Class<?> once : List.of(InputStream.class, FileInputStream.class, Reader.class, BufferedReader.class)) {
            String why = ReturnKind.whyNotReplayable(once);
            assertNotNull(why, once.getName());
            assertTrue(why.startsWith("an InputStream or Reader is consumed once"), why);
        }
    }

    @Test
    void otherFutureTypesAreNotSupported() {
        for (Class<?> future : List.of(Future.class, FutureTask.class)) {
            String why = ReturnKind.whyNotReplayable(future);
            assertNotNull(why, future.getName());
            assertTrue(why.startsWith("only CompletionStage and CompletableFuture themselves"), why);
        }
    }

    @Test
    void reactivePublishersCannotBeReplayed() throws Exception {
        for (Class<?> publisher : List.of(Flow.Publisher.class, SubmissionPublisher.class)) {
            assertTrue(ReturnKind.whyNotReplayable(publisher).startsWith("a reactive publisher"), publisher.getName());
        }
        // The reactive libraries are not on this class path: compile look-alikes of their types for the test.
        try (URLClassLoader loader = compile("package org.reactivestreams; public interface Publisher<T> {}",
                "package reactor.core.publisher; public abstract class Flux<T> {}",
                "package io.reactivex.rxjava3.core; public abstract class Observable<T> {}",
                "package io.reactivex; public class Single<T> {}")) {
            for (String name : List.of("org.reactivestreams.Publisher", "reactor.core.publisher.Flux",
                    "io.reactivex.rxjava3.core.Observable", "io.reactivex.Single")) {
                String why = ReturnKind.whyNotReplayable(loader.loadClass(name));
                assertNotNull(why, name);
                assertTrue(why.startsWith("a reactive publisher"), why);
            }
        }
    }

    private static URLClassLoader compile(String... sources) throws Exception {
        Path dir = Files.createTempDirectory("reactive-look-alikes");
        List<String> files = new java.util.ArrayList<>();
        for (String source : sources) {
            String pkg = source.substring("package ".length(), source.indexOf(';'));
            String simple = source.replaceAll("(?s).*(?:interface|class) (\\w+).*", "$1");
            Path file = dir.resolve(pkg.replace('.', '/')).resolve(simple + ".java");
            Files.createDirectories(file.getParent());
            Files.writeString(file, source);
            files.add(file.toString());
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<String> args = new java.util.ArrayList<>(List.of("-d", dir.toString()));
        args.addAll(files);
        assertEquals(0, javac.run(null, null, null, args.toArray(new String[0])), "the look-alikes compile");
        return new URLClassLoader(new URL[] {dir.toUri().toURL()}, ReturnKindTest.class.getClassLoader());
    }
}
