package dev.idem.store.redis;

import dev.idem.IdempotencyStoreException;
import dev.idem.store.IdempotencyRecord;
import dev.idem.store.RecordState;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;

/**
 * The client's side of the record's byte format (its layout is in {@link Scripts}): the variable fields a claim
 * sends, the owner check's argument, and a stored record read back. The scripts write the fixed header themselves.
 */
final class RecordFormat {
    /** The record's first byte while it is in progress. */
    private static final byte IN_PROGRESS = 'I';
    /** The largest token the owner check's 16 digits hold. */
    private static final long MAX_TOKEN = 9_999_999_999_999_999L;

    private RecordFormat() {
    }

    /**
     * The variable fields of a new record: {@code klen:plen:olen:} and the key, the payload hash and the owner.
     *
     * @param key         the idempotency key's UTF-8 bytes
     * @param payloadHash the payload hash's UTF-8 bytes
     * @param owner       the owner's UTF-8 bytes
     * @return a new array
     */
    static byte[] fields(byte[] key, byte[] payloadHash, byte[] owner) {
        byte[] lengths = (key.length + ":" + payloadHash.length + ":" + owner.length + ":")
                .getBytes(StandardCharsets.UTF_8);
        byte[] fields = new byte[lengths.length + key.length + payloadHash.length + owner.length];
        int at = 0;
        for (byte[] part : new byte[][] {lengths, key, payloadHash, owner}) {
            System.arraycopy(part, 0, fields, at, part.length);
            at += part.length;
        }
        return fields;
    }

    /**
     * What the scripts compare a record's first 17 bytes with to know the caller owns it: {@code I} (in progress) and
     * {@code token} in 16 digits. A token that cannot be written so (negative, or more than 16 digits) was never
     * given, and gets an argument no record starts with.
     */
    static byte[] owned(long token) {
        if (token < 0 || token > MAX_TOKEN) {
            return "-".getBytes(StandardCharsets.UTF_8);
        }
        byte[] owned = new byte[Scripts.TOKEN_AT + Scripts.TOKEN_DIGITS];
        owned[0] = IN_PROGRESS;
        long rest = token;
        for (int i = owned.length - 1; i >= Scripts.TOKEN_AT; i--) {
            owned[i] = (byte) ('0' + rest % 10);
            rest /= 10;
        }
        return owned;
    }

    /**
     * The record stored as {@code raw}.
     *
     * @throws IdempotencyStoreException when {@code raw} is not such a record (another program's value under the
     *                                   store's key name, say)
     */
    static IdempotencyRecord record(byte[] raw) {
        try {
            return parse(raw);
        } catch (RuntimeException e) {
            throw new IdempotencyStoreException("redis store: a value of " + raw.length + " bytes under a record's"
                    + " name is not a record of this store's format", e);
        }
    }

    /**
     * The record stored as {@code raw}.
     *
     * @throws RuntimeException of some kind when {@code raw} is not a record of this format
     */
    static IdempotencyRecord parse(byte[] raw) {
        int at = Scripts.HEADER;
        int[] lengths = new int[3]; // of the key, the payload hash and the owner, each ended by ':'
        for (int field = 0; field < lengths.length; field++) {
            while (raw[at] != ':') {
                lengths[field] = lengths[field] * 10 + raw[at++] - '0';
            }
            at++;
        }
        String key = new String(raw, at, lengths[0], StandardCharsets.UTF_8);
        at += lengths[0];
        String payloadHash = new String(raw, at, lengths[1], StandardCharsets.UTF_8);
        at += lengths[1];
        String owner = new String(raw, at, lengths[2], StandardCharsets.UTF_8);
        at += lengths[2];
        RecordState state = switch (raw[0]) {
            case IN_PROGRESS -> RecordState.IN_PROGRESS;
            case 'C' -> RecordState.COMPLETED;
            case 'F' -> RecordState.FAILED;
            default -> throw new IllegalArgumentException("no state " + (char) raw[0]);
        };
        boolean finished = state != RecordState.IN_PROGRESS;
        return new IdempotencyRecord(key, state, payloadHash, owner,
                digits(raw, Scripts.TOKEN_AT, Scripts.TOKEN_DIGITS), time(raw, Scripts.STARTED_AT),
                time(raw, Scripts.LEASE_UNTIL_AT), finished ? time(raw, Scripts.COMPLETED_AT) : null,
                finished ? time(raw, Scripts.EXPIRES_AT) : null,
                finished ? Arrays.copyOfRange(raw, at, raw.length) : null);
    }

    /** The time in the header of {@code raw} at {@code from}. */
    private static Instant time(byte[] raw, int from) {
        return Instant.ofEpochMilli(digits(raw, from, Scripts.TIME_DIGITS));
    }

    /** The decimal number in {@code length} bytes of {@code raw} from {@code from}. */
    private static long digits(byte[] raw, int from, int length) {
        long n = 0;
        for (int i = from; i < from + length; i++) {
            n = n * 10 + raw[i] - '0';
        }
        return n;
    }
}
