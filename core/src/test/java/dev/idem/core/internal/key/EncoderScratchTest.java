package dev.idem.core.internal.key;

import org.junit.jupiter.api.Test;

import java.security.MessageDigest;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a thread keeps between encodings: reusable space, and nothing of the arguments. */
class EncoderScratchTest {

    private static boolean allZero(byte[] bytes) {
        for (byte b : bytes) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    @Test
    void releaseZeroesTheBytesOfTheArgumentsBeforeTheBufferIsReused() {
        CanonicalEncoder first = CanonicalEncoder.acquire();
        first.encode("a secret prompt");
        byte[] buffer = first.buffer();
        first.release();

        CanonicalEncoder second = CanonicalEncoder.acquire();
        try {
            // first is still referenced here, so the thread's weakly held encoder cannot have been collected
            assertEquals(first, second, "the thread's encoder is reused");
            assertEquals(buffer, second.buffer(), "and its buffer");
            assertTrue(allZero(second.buffer()), "nothing of the last argument is left in it");
        } finally {
            second.release();
        }
    }

    @Test
    void anEncodingThatFailsHalfWayIsZeroedToo() {
        CanonicalEncoder encoder = CanonicalEncoder.acquire();
        java.util.List<Object> cyclic = new java.util.ArrayList<>();
        cyclic.add("a secret prompt");
        cyclic.add(cyclic);
        assertThrows(UnencodableValueException.class, () -> encoder.encode(cyclic));
        byte[] buffer = encoder.buffer();
        encoder.release();

        assertTrue(allZero(buffer));
        assertTrue(encoder.holdsNoValues(), "no reference to the values being encoded is kept");
    }

    @Test
    void bytesLeftBeyondARewindAreZeroedTooWhenTheEncodingFailsAfterIt() {
        // A set's elements are encoded one by one into the buffer's tail, copied out and rewound over: here the
        // secret is rewound over, then an element with no canonical form fails having written nothing.
        java.util.Set<Object> set = new java.util.LinkedHashSet<>();
        set.add("a secret prompt, longer than what the failing element writes");
        set.add(new Object());
        CanonicalEncoder encoder = CanonicalEncoder.acquire();
        assertThrows(UnencodableValueException.class, () -> encoder.encode(set));
        byte[] buffer = encoder.buffer();
        encoder.release();

        assertTrue(allZero(buffer));
    }

    @Test
    void aCompleteEncodingOfNestedValuesKeepsNoReferenceToThem() {
        CanonicalEncoder encoder = CanonicalEncoder.acquire();
        encoder.encode(java.util.List.of(java.util.List.of("a secret"), java.util.Map.of("k", java.util.Set.of(1))));
        encoder.release();

        assertTrue(encoder.holdsNoValues());
    }

    @Test
    void aNestedEncoderOnTheSameThreadGetsPartsOfItsOwn() {
        CanonicalEncoder outer = CanonicalEncoder.acquire();
        try {
            outer.encode("outer");
            CanonicalEncoder nested = CanonicalEncoder.acquire();
            try {
                assertNotSame(outer.buffer(), nested.buffer());
                nested.encode("nested");
            } finally {
                nested.release();
            }
            byte[] alone = encodingOf("outer");
            assertArrayEquals(alone, outer.toByteArray(), "the outer encoding is untouched");
        } finally {
            outer.release();
        }
    }

    @Test
    void aPrefixDigestEqualsTheDigestOfThePrefixAloneOnBothSidesOfTheSnapshotThreshold() throws Exception {
        for (int size : new int[] {10, 1023, 1024, 5000, 70_000}) {
            char[] text = new char[size];
            Arrays.fill(text, 'x');
            String payload = new String(text);
            byte[] expectedPrefix = MessageDigest.getInstance("SHA-256").digest(encodingOf(payload));

            CanonicalEncoder encoder = CanonicalEncoder.acquire();
            try {
                encoder.encode(payload);
                encoder.markPrefix();
                encoder.writeString("v1");
                byte[] whole = encoder.toByteArray();
                byte[] keyDigest = encoder.sha256().clone();

                assertArrayEquals(MessageDigest.getInstance("SHA-256").digest(whole), keyDigest, "key, " + size);
                assertArrayEquals(expectedPrefix, encoder.prefixSha256(), "prefix, " + size);
            } finally {
                encoder.release();
            }
        }
    }

    @Test
    void aLongPrefixLeftInTheDigestByAnAbandonedEncodingDoesNotEnterTheNextDigest() throws Exception {
        char[] text = new char[5000]; // past the snapshot threshold: markPrefix feeds the digest
        Arrays.fill(text, 'x');
        CanonicalEncoder abandoned = CanonicalEncoder.acquire();
        abandoned.encode(new String(text));
        abandoned.markPrefix();
        abandoned.release(); // as after an encoding that failed before its digest was taken

        CanonicalEncoder next = CanonicalEncoder.acquire();
        try {
            assertEquals(abandoned, next, "the same encoder, so the same digest object");
            next.encode("short");
            assertArrayEquals(MessageDigest.getInstance("SHA-256").digest(encodingOf("short")), next.sha256());
        } finally {
            next.release();
        }
    }

    @Test
    void anEncodedConstantIsTheBytesWriteStringWrites() {
        for (String version : new String[] {"", "v1", "2026-11-30", "é€𝄞"}) {
            CanonicalEncoder encoder = CanonicalEncoder.acquire();
            try {
                encoder.writeString(version);
                assertArrayEquals(encoder.toByteArray(), CanonicalEncoder.encodedString(version), version);
            } finally {
                encoder.release();
            }
        }
    }

    private static byte[] encodingOf(Object value) {
        CanonicalEncoder encoder = CanonicalEncoder.acquire();
        try {
            encoder.encode(value);
            return encoder.toByteArray();
        } finally {
            encoder.release();
        }
    }

    @Test
    void releaseForgetsTheProbesScopeSoNoTextOfACallIsKept() {
        CanonicalEncoder encoder = CanonicalEncoder.acquire();
        CallKey.Probe probe = encoder.probe().set("prod", "tenant:secret-42", 1, 2, null);
        assertEquals(new CallKey("prod", "tenant:secret-42", 1, 2), probe);
        encoder.release();

        assertTrue(probe.isClear(), "a released encoder's probe holds no scope, namespace or prefix");
    }

    @Test
    void aBufferLongerThanTheZeroBlockIsZeroedWholeToo() {
        // release zeroes by copying a block of zeros; past the block's length it must still zero everything
        CanonicalEncoder encoder = CanonicalEncoder.acquire();
        encoder.encode("x".repeat(10_000));
        byte[] buffer = encoder.buffer();
        encoder.release();

        assertTrue(allZero(buffer));
    }

    @Test
    void textOfAsciiThenOtherCharactersIsEncodedAsUtf8() {
        // the ASCII chars are copied by a loop of their own, then the rest by the general one
        for (String text : new String[] {"", "rust", "naïve", "é", "abc€", "a𝄞b", "\u007f\u0080", "x\ud800y"}) {
            CanonicalEncoder encoder = CanonicalEncoder.acquire();
            try {
                encoder.writeString(text);
                byte[] utf8 = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
                byte[] expected = new byte[5 + utf8.length];
                expected[0] = CanonicalEncoder.STRING;
                java.nio.ByteBuffer.wrap(expected, 1, 4).putInt(utf8.length);
                System.arraycopy(utf8, 0, expected, 5, utf8.length);
                assertArrayEquals(expected, encoder.toByteArray(), text);
            } finally {
                encoder.release();
            }
        }
    }

    @Test
    void theThreadsEncoderIsLentUntilReleasedAndANestedUseGetsAnotherOne() {
        CanonicalEncoder encoder = CanonicalEncoder.acquire();
        assertTrue(PerThreadEncoder.isLent());
        CanonicalEncoder nested = CanonicalEncoder.acquire();
        assertFalse(nested == encoder, "a nested use gets an encoder of its own");
        nested.release();
        assertTrue(PerThreadEncoder.isLent(), "releasing the nested one leaves the outer lent");
        encoder.release();
        assertFalse(PerThreadEncoder.isLent());
        assertTrue(CanonicalEncoder.acquire() == encoder, "the thread's encoder is reused (held here, so no GC"
                + " can have cleared it)");
        encoder.release();
    }
}
