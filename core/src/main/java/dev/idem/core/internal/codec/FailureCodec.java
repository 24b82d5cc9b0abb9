package dev.idem.core.internal.codec;

import dev.idem.IdempotencyException;
import dev.idem.IdempotencyFailureReplayException;
import dev.idem.IdempotencyStoreException;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.util.List;

/**
 * Stores a remembered failure as its exception's type and message, and rebuilds an exception of that type on
 * replay when the type is allowed: one of the method's declared exception types or {@code noRetryFor} types (or a
 * subclass), or one of the JDK's own exceptions. Other types replay as {@link IdempotencyFailureReplayException}.
 *
 * <p>An {@link Error} or an interrupt is never rebuilt, whatever the record says: the engine never remembers them
 * ({@link PersonalFailures}), so such a record is foreign, and handing a caller an {@code OutOfMemoryError} or an
 * {@code InterruptedException} it did not suffer would mislead it.
 */
public final class FailureCodec {
    private static final int MAX_MESSAGE = 2000;

    private final String operation;
    private final List<Class<?>> allowedBases;
    private final ClassLoader loader;

    public FailureCodec(String operation, List<Class<?>> allowedBases, ClassLoader loader) {
        this.operation = operation;
        this.allowedBases = List.copyOf(allowedBases);
        this.loader = loader;
    }

    public byte[] encode(Throwable failure) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeUTF(failure.getClass().getName());
            String message = failure.getMessage();
            out.writeBoolean(message != null);
            if (message != null) {
                out.writeUTF(message.length() > MAX_MESSAGE ? message.substring(0, MAX_MESSAGE) : message);
            }
        } catch (IOException e) {
            throw new IllegalStateException("writing to memory cannot fail", e);
        }
        return bytes.toByteArray();
    }

    /** The exception to throw for a stored failure. */
    public Throwable decode(byte[] encoded, String key) {
        String type;
        String message;
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(encoded))) {
            type = in.readUTF();
            message = in.readBoolean() ? in.readUTF() : null;
        } catch (IOException e) {
            throw new IdempotencyStoreException(operation + ": the stored failure of " + key + " is corrupt", e);
        }
        Throwable rebuilt = rebuild(type, message);
        if (rebuilt != null) {
            return rebuilt;
        }
        return new IdempotencyFailureReplayException(operation + ": the execution of " + key + " failed with "
                + type + (message == null ? "" : ": " + message) + " (replayed until the failure ttl passes; declare"
                + " the type in the method's throws clause to have it replayed as itself)", type);
    }

    private Throwable rebuild(String type, String message) {
        Class<?> c;
        try {
            c = Class.forName(type, false, loader); // not initialised unless allowed below
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
        if (!Throwable.class.isAssignableFrom(c) || !isAllowed(c)) {
            return null;
        }
        try {
            try {
                Constructor<?> withMessage = c.getDeclaredConstructor(String.class);
                withMessage.setAccessible(true);
                return (Throwable) withMessage.newInstance(message);
            } catch (NoSuchMethodException e) {
                Constructor<?> plain = c.getDeclaredConstructor();
                plain.setAccessible(true);
                return (Throwable) plain.newInstance();
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private boolean isAllowed(Class<?> c) {
        if (PersonalFailures.isPersonalType(c)) {
            return false;
        }
        if (c.getClassLoader() == null && c.getName().startsWith("java.")) {
            return true;
        }
        if (IdempotencyException.class.isAssignableFrom(c) && c.getName().startsWith("dev.idem.")) {
            return true; // Idem's own answers, such as "succeeded but its result could not be stored"
        }
        for (Class<?> base : allowedBases) {
            if (base.isAssignableFrom(c) && base != Throwable.class && base != Exception.class
                    && base != RuntimeException.class && base != Error.class) {
                return true;
            }
        }
        return false;
    }
}
