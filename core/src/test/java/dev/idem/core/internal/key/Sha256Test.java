package dev.idem.core.internal.key;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** SEMANTICS.md section 1: the key's hash is the first 128 bits of SHA-256, as 32 lowercase hex digits. */
class Sha256Test {
    private static final String ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; // FIPS 180-2

    @Test
    void theDigestIsStandardSha256OfTheGivenPrefixAndTheDigestIsReusable() {
        MessageDigest digest = Sha256.newDigest();
        byte[] out = new byte[Sha256.LENGTH];
        byte[] buffer = "abcdef".getBytes(StandardCharsets.US_ASCII);
        Sha256.digest(digest, buffer, 3, out);
        assertEquals(ABC, Sha256.hex(out, 32));
        Sha256.digest(digest, buffer, 3, out);
        assertEquals(ABC, Sha256.hex(out, 32), "the digest starts afresh every time");
        assertEquals(32, Sha256.LENGTH);
    }

    @Test
    void hexIsLowercaseTwoDigitsPerByteForTheGivenLength() {
        byte[] bytes = {0x00, 0x0f, (byte) 0xf0, (byte) 0xff, 0x7a, (byte) 0x80};
        assertEquals("000ff0ff7a80", Sha256.hex(bytes, 6));
        assertEquals("000f", Sha256.hex(bytes, 2));
        assertEquals("", Sha256.hex(bytes, 0));
    }

    @Test
    void readLongIsBigEndian() {
        byte[] bytes = HexFormat.of().parseHex("00112233445566778899aabbccddeeff");
        assertEquals(0x0011223344556677L, Sha256.readLong(bytes, 0));
        assertEquals(0x8899aabbccddeeffL, Sha256.readLong(bytes, 8));
    }

    @Test
    void hex128IsTheFirst128BitsOfTheDigestInHex() {
        byte[] digest = HexFormat.of().parseHex(ABC);
        String hex = Sha256.hex128(Sha256.readLong(digest, 0), Sha256.readLong(digest, 8));
        assertEquals(ABC.substring(0, 32), hex);
        assertEquals("0000000000000001ffffffffffffffff", Sha256.hex128(1L, -1L));
        assertEquals("80000000000000000123456789abcdef", Sha256.hex128(Long.MIN_VALUE, 0x0123456789abcdefL));
    }
}
