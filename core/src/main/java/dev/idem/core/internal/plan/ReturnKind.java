package dev.idem.core.internal.plan;

import java.io.InputStream;
import java.io.Reader;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.util.Iterator;
import java.util.Optional;
import java.util.Spliterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.stream.BaseStream;

/** How a method's result is stored and handed back. */
public enum ReturnKind {
    /** A plain value (possibly null), stored as is. */
    VALUE,
    /** {@code void}: nothing is stored but the fact of completion. */
    VOID,
    /** {@code Optional<T>}: the content is stored, the Optional rebuilt on replay. */
    OPTIONAL,
    /** {@code CompletionStage<T>} or {@code CompletableFuture<T>}: the record completes when the future does. */
    FUTURE;

    static ReturnKind of(Class<?> raw) {
        if (raw == void.class || raw == Void.class) {
            return VOID;
        }
        if (raw == Optional.class) {
            return OPTIONAL;
        }
        if (raw == CompletionStage.class || raw == CompletableFuture.class) {
            return FUTURE;
        }
        return VALUE;
    }

    /** Why a result of this type cannot be replayed, or null when it can. */
    static String whyNotReplayable(Class<?> raw) {
        if (BaseStream.class.isAssignableFrom(raw) || Iterator.class.isAssignableFrom(raw)
                || Spliterator.class.isAssignableFrom(raw)) {
            return "a stream or iterator is consumed once, so a stored copy cannot be handed to a second caller;"
                    + " return a materialised value (a List)";
        }
        if (InputStream.class.isAssignableFrom(raw) || Reader.class.isAssignableFrom(raw)) {
            return "an InputStream or Reader is consumed once; return the bytes or text it holds";
        }
        if (Flow.Publisher.class.isAssignableFrom(raw) || raw.getName().equals("org.reactivestreams.Publisher")
                || raw.getName().startsWith("reactor.core.publisher.") || raw.getName().startsWith("io.reactivex")) {
            return "a reactive publisher of many items cannot be replayed; return a CompletionStage of a"
                    + " materialised value";
        }
        if (Future.class.isAssignableFrom(raw) || CompletionStage.class.isAssignableFrom(raw)) {
            return "only CompletionStage and CompletableFuture themselves are supported as future types";
        }
        return null;
    }

    /** The type that is stored: the method's return type, or the content type of an Optional or future. */
    Type storedType(Type genericReturn) {
        if (this == VOID) {
            return Void.class;
        }
        if (this == VALUE) {
            return genericReturn;
        }
        if (genericReturn instanceof ParameterizedType) {
            Type arg = ((ParameterizedType) genericReturn).getActualTypeArguments()[0];
            if (arg instanceof WildcardType) {
                Type[] upper = ((WildcardType) arg).getUpperBounds();
                return upper.length == 0 ? Object.class : upper[0];
            }
            return arg;
        }
        return Object.class;
    }
}
