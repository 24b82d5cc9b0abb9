package dev.idem.core.internal.codec;

import dev.idem.IdempotencyFailureReplayException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Remembered failures replay as their own type only where that cannot mislead or endanger the caller. */
class FailureCodecTest {
    static class Declared extends Exception {
        Declared(String message) {
            super(message);
        }
    }

    static class Undeclared extends RuntimeException {
        Undeclared(String message) {
            super(message);
        }
    }

    static class NoMessageConstructor extends Exception {
        NoMessageConstructor() {
            super("fixed message");
        }
    }

    private final FailureCodec codec = new FailureCodec("Svc#op", List.of(Declared.class),
            FailureCodecTest.class.getClassLoader());

    private Throwable roundTrip(Throwable failure) {
        return codec.decode(codec.encode(failure), "idem:test:s:k");
    }

    @Test
    void jdkExceptionsAndDeclaredTypesReplayAsThemselvesWithTheirMessage() {
        Throwable jdk = roundTrip(new IllegalStateException("upstream said no"));
        assertInstanceOf(IllegalStateException.class, jdk);
        assertEquals("upstream said no", jdk.getMessage());

        Throwable declared = roundTrip(new Declared("429"));
        assertInstanceOf(Declared.class, declared);
        assertEquals("429", declared.getMessage());
    }

    @Test
    void aDeclaredTypeWithoutAMessageConstructorIsRebuiltWithItsNoArgumentOne() {
        FailureCodec declaring = new FailureCodec("Svc#op", List.of(NoMessageConstructor.class),
                FailureCodecTest.class.getClassLoader());
        Throwable rebuilt = declaring.decode(declaring.encode(new NoMessageConstructor()), "idem:test:s:k");
        assertInstanceOf(NoMessageConstructor.class, rebuilt);
        assertEquals("fixed message", rebuilt.getMessage());
    }

    @Test
    void undeclaredApplicationTypesReplayAsAFailureReplayExceptionNamingThem() {
        IdempotencyFailureReplayException replayed = assertInstanceOf(IdempotencyFailureReplayException.class,
                roundTrip(new Undeclared("boom")));
        assertEquals(Undeclared.class.getName(), replayed.originalType());
        assertTrue(replayed.getMessage().contains("idem:test:s:k") && replayed.getMessage().contains("boom"),
                replayed.getMessage());
    }

    @Test
    void errorsAndInterruptsAreNeverRebuiltEvenFromAStoredRecord() {
        for (Throwable personal : new Throwable[] {new OutOfMemoryError("heap"), new StackOverflowError(),
                new InterruptedException("stop"), new java.nio.channels.ClosedByInterruptException()}) {
            IdempotencyFailureReplayException replayed = assertInstanceOf(IdempotencyFailureReplayException.class,
                    roundTrip(personal), personal.getClass().getName());
            assertEquals(personal.getClass().getName(), replayed.originalType());
        }
    }

    @Test
    void personalFailuresAreErrorsInterruptsAndCancellationsAlsoWhenWrapped() {
        assertTrue(PersonalFailures.isPersonal(new OutOfMemoryError(), false));
        assertTrue(PersonalFailures.isPersonal(new RuntimeException(new InterruptedException()), false));
        assertTrue(PersonalFailures.isPersonal(new java.util.concurrent.CancellationException(), false));
        assertTrue(PersonalFailures.isPersonal(new java.io.InterruptedIOException(), false));
        assertTrue(PersonalFailures.isPersonal(new IllegalStateException("wrapped"), true),
                "the running thread's interrupt flag makes any failure the leader's own");

        assertTrue(!PersonalFailures.isPersonal(new IllegalStateException("429"), false));
        assertTrue(!PersonalFailures.isPersonal(new java.net.SocketTimeoutException("read timed out"), false),
                "a socket timeout is a timeout, not an interrupt");
        assertTrue(!PersonalFailures.isPersonal(new IOException("reset"), false));
    }

    @Test
    void theCauseChainIsWalkedEightDeepAndNoFurtherSoACycleCannotHang() {
        assertTrue(PersonalFailures.isPersonal(wrapped(new InterruptedException(), 7), false), "8th in the chain");
        assertTrue(!PersonalFailures.isPersonal(wrapped(new InterruptedException(), 8), false), "9th: not looked at");

        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b", a);
        a.initCause(b); // a cycle the JDK allows
        assertTrue(!PersonalFailures.isPersonal(a, false));
    }

    private static Throwable wrapped(Throwable innermost, int wrappers) {
        Throwable t = innermost;
        for (int i = 0; i < wrappers; i++) {
            t = new RuntimeException("wrapper " + i, t);
        }
        return t;
    }
}
