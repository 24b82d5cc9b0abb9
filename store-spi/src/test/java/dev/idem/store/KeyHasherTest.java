package dev.idem.store;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;

/** The stores' key hash: SHA-256 of the key's UTF-8 bytes, each call on its own. */
class KeyHasherTest {
    private final KeyHasher hasher = new KeyHasher();

    @Test
    void theHashIsSha256OfTheKeysUtf8Bytes() {
        // FIPS 180-2's vectors: "abc", and the empty message
        assertEquals("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                HexFormat.of().formatHex(hasher.hash("abc")));
        assertEquals("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                HexFormat.of().formatHex(hasher.hash("")));
        // a key outside ASCII is hashed as UTF-8, "é" as c3 a9: the hash of those two bytes
        assertArrayEquals(hasher.hash(new byte[] {(byte) 0xc3, (byte) 0xa9}), hasher.hash("é"));
        assertEquals(KeyHasher.LENGTH, hasher.hash("idem:prod:orders:abc").length);
    }

    @Test
    void eachHashStartsAfreshAndIsANewArray() {
        byte[] first = hasher.hash("idem:prod:orders:1");
        hasher.hash("idem:prod:orders:2");
        byte[] again = hasher.hash("idem:prod:orders:1");
        assertArrayEquals(first, again);
        assertNotSame(first, again);
        assertArrayEquals(first, new KeyHasher().hash("idem:prod:orders:1".getBytes(StandardCharsets.UTF_8)));
    }
}
