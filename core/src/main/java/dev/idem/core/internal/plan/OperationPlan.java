package dev.idem.core.internal.plan;

import dev.idem.IdempotencyKeyException;
import dev.idem.OnInProgress;
import dev.idem.WindowAlignment;
import dev.idem.core.IdempotencyPolicy;
import dev.idem.core.InMemoryIdempotencyStore;
import dev.idem.core.internal.codec.FailureCodec;
import dev.idem.core.internal.codec.StoredResults;
import dev.idem.core.internal.key.CallKey;
import dev.idem.core.internal.key.CanonicalEncoder;
import dev.idem.core.internal.key.ConstantBytes;
import dev.idem.core.internal.key.Canonicalizers;
import dev.idem.core.internal.key.KeySource;
import dev.idem.core.internal.key.ScopeTemplate;
import dev.idem.core.internal.key.Sha256;
import dev.idem.core.internal.key.UnencodableValueException;
import dev.idem.store.ClaimRequest;
import dev.idem.store.IdempotencyStore;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Everything about one operation that does not depend on a call's arguments, computed once: the policy, the
 * store, the key and payload sources, the scope template, the codecs. What a call needs beyond this is its
 * arguments and the time.
 */
public final class OperationPlan {
    private static final AtomicLong IDS = new AtomicLong();

    /** Tells plans apart, also two plans of one operation (a class reloaded), without holding either. */
    public final long id = IDS.incrementAndGet();
    public final String operation;
    public final IdempotencyPolicy policy;
    public final IdempotencyStore store;
    /**
     * Whether a result this engine just stored is also kept decoded in its local results. Yes in front of a store
     * in another process: a duplicate then costs no round trip. Not in front of the in-memory store, which already
     * holds the result in this JVM: most first calls are never repeated (an HTTP Idempotency-Key is new on nearly
     * every request), so the copy would cost every first call a cache write and its memory for nothing; the first
     * duplicate decodes the store's bytes once and keeps them from then on.
     */
    public final boolean keepsResultOnCompletion;
    final String namespace;
    final ScopeTemplate scope;
    final KeySource[] keySources;
    final KeySource[] payloadSources;
    /** The key covers exactly the payload, so a key match implies a payload match and needs no second hash. */
    public final boolean payloadSameAsKey;
    public final ReturnKind returnKind;
    public final StoredResults codec;
    public final FailureCodec failureCodec;
    final Canonicalizers canonicalizers;
    final long windowMillis;
    final boolean fixedWindow;
    final ZoneId zone;
    /** The key's text before its hash when the scope is literal (the common case), made once; else null. */
    private final String literalKeyPrefix;
    /** The version as {@link CanonicalEncoder#writeString} encodes it, made once: every key ends with it. */
    private final ConstantBytes encodedVersion;

    OperationPlan(String operation, IdempotencyPolicy policy, IdempotencyStore store, String namespace,
                  ScopeTemplate scope, KeySource[] keySources, KeySource[] payloadSources, ReturnKind returnKind,
                  StoredResults codec, FailureCodec failureCodec, Canonicalizers canonicalizers) {
        this.operation = operation;
        this.policy = policy;
        this.store = store;
        this.keepsResultOnCompletion = !(store instanceof InMemoryIdempotencyStore);
        this.namespace = namespace;
        this.scope = scope;
        this.keySources = keySources;
        this.payloadSources = payloadSources;
        this.payloadSameAsKey = sameSources(keySources, payloadSources);
        this.returnKind = returnKind;
        this.codec = codec;
        this.failureCodec = failureCodec;
        this.canonicalizers = canonicalizers;
        this.windowMillis = policy.window().toMillis();
        this.fixedWindow = policy.windowAlignment() == WindowAlignment.FIXED;
        this.zone = policy.zone();
        this.literalKeyPrefix = scope.isLiteral() ? CallKey.keyPrefix(namespace, scope.render(new Object[0])) : null;
        this.encodedVersion = CanonicalEncoder.encodedConstant(policy.version());
    }

    /** The operation's name in messages and events. */
    public String operation() {
        return operation;
    }

    public IdempotencyPolicy policy() {
        return policy;
    }

    /**
     * The call's key: the rendered scope and the first 128 bits of SHA-256 over the canonical encoding of the key
     * values, the version, and for FIXED windows the window's start.
     */
    public CallKey identify(Object[] args, long nowMillis) {
        CanonicalEncoder encoder = CanonicalEncoder.acquire();
        try {
            return identify(encoder, args, nowMillis);
        } finally {
            encoder.release();
        }
    }

    /**
     * {@link #identify(Object[], long)} with the caller's encoder, which keeps the encoding so that
     * {@link #payloadDigest(CanonicalEncoder, Object[])} on the same encoder can reuse it.
     */
    public CallKey identify(CanonicalEncoder encoder, Object[] args, long nowMillis) {
        String renderedScope = renderScope(args);
        byte[] digest = keyDigest(encoder, args, nowMillis);
        return callKey(renderedScope, Sha256.readLong(digest, 0), Sha256.readLong(digest, 8));
    }

    /** The key of this operation with {@code scope} and hash {@code hi}, {@code lo}, as {@link #identify} makes it. */
    public CallKey callKey(String renderedScope, long hi, long lo) {
        return new CallKey(namespace, renderedScope, hi, lo, literalKeyPrefix);
    }

    /**
     * {@link #identify(CanonicalEncoder, Object[], long)} written into the encoder's {@link CallKey.Probe} instead
     * of a new key: the same identity, to look a kept result up without allocating. The probe is valid until the
     * encoder is released.
     */
    public CallKey.Probe probe(CanonicalEncoder encoder, Object[] args, long nowMillis) {
        String renderedScope = renderScope(args);
        byte[] digest = keyDigest(encoder, args, nowMillis);
        return encoder.probe().set(namespace, renderedScope, Sha256.readLong(digest, 0), Sha256.readLong(digest, 8),
                literalKeyPrefix);
    }

    private byte[] keyDigest(CanonicalEncoder encoder, Object[] args, long nowMillis) {
        encoder.using(canonicalizers);
        encodeSources(encoder, keySources, args);
        if (payloadSameAsKey) {
            encoder.markPrefix(); // the payload's encoding is this prefix of the key's
        }
        encoder.writeConstant(encodedVersion);
        if (fixedWindow) {
            encoder.writeInteger(windowStart(nowMillis));
        }
        return encoder.sha256();
    }

    /** The call's key as the store gets it; refused, the method not run, when it is longer than every store takes. */
    public String storeKey(CallKey key) {
        String keyText = key.toString();
        if (keyText.length() > IdempotencyStore.MAX_KEY_LENGTH) {
            throw new IdempotencyKeyException(operation + ": its key would be " + keyText.length()
                    + " characters, longer than the " + IdempotencyStore.MAX_KEY_LENGTH + " every store accepts;"
                    + " the scope's placeholders rendered too long a value (key them by an id, or shorten the"
                    + " scope). The method did not run.");
        }
        return keyText;
    }

    /**
     * The shortest a call's first claim waits on another transaction's hold of the key's row
     * ({@link ClaimRequest#lockWait()}), even with {@code onInProgress = THROW} or a shorter {@code waitTimeout}.
     * Racing callers of a new key wait on each other this way: the winner's plain claim is one statement that holds
     * the key (on PostgreSQL, its lock) until it commits, a few milliseconds even on a loaded server. A loser that
     * gave up sooner would be answered with a stand-in in-progress record carrying its own payload hash (a payload
     * conflict hidden) instead of the winner's record, and PostgreSQL would log an error for it. A transaction of the
     * application that holds the key (the transactional mode) lasts as long as its method, far longer: THROW still
     * refuses that caller without waiting for it to end.
     */
    public static final Duration MIN_LOCK_WAIT = Duration.ofMillis(250);

    /**
     * The claim of a call: FIXED windows are in the key, so the store supersedes only by sliding windows. It waits on
     * another transaction's hold of the key's row as long as the caller waits for an execution in progress, and at
     * least {@link #MIN_LOCK_WAIT} (only that with {@code onInProgress = THROW}, which waits for no execution).
     */
    public ClaimRequest claimRequest(String keyText, String payloadHex, String owner) {
        Duration lockWait = policy.onInProgress() == OnInProgress.THROW
                || policy.waitTimeout().compareTo(MIN_LOCK_WAIT) < 0 ? MIN_LOCK_WAIT : policy.waitTimeout();
        return new ClaimRequest(keyText, payloadHex, owner, policy.lease(),
                fixedWindow ? Duration.ZERO : policy.window(), lockWait);
    }

    /** SHA-256 over the canonical encoding of the payload values, on an encoder of its own. */
    byte[] payloadDigest(Object[] args) {
        CanonicalEncoder encoder = CanonicalEncoder.acquire();
        try {
            return encodePayload(encoder, args);
        } finally {
            encoder.release();
        }
    }

    /**
     * SHA-256 over the canonical encoding of the payload values, on the encoder that has just identified the
     * call: when the payload is the key's parameters their encoding is not made a second time.
     */
    public byte[] payloadDigest(CanonicalEncoder encoder, Object[] args) {
        if (payloadSameAsKey) {
            return encoder.prefixSha256();
        }
        encoder.truncate(0);
        return encodePayload(encoder, args);
    }

    private byte[] encodePayload(CanonicalEncoder encoder, Object[] args) {
        encoder.using(canonicalizers);
        encodeSources(encoder, payloadSources, args);
        return encoder.sha256().clone();
    }

    /**
     * Until when a result of an execution started at {@code startedAtMillis} answers duplicates: the end of its
     * sliding window, or never for FIXED windows (the key changes with the bucket) and no window (ttl decides).
     */
    public long supersedeAt(long startedAtMillis) {
        return windowMillis > 0 && !fixedWindow ? startedAtMillis + windowMillis : Long.MAX_VALUE;
    }

    /** Whether calls need the time to be told apart (FIXED windows put the window's start in the key). */
    public boolean keyDependsOnTime() {
        return fixedWindow;
    }

    /** Whether a call with {@code digest} may be answered by an execution that ran with {@code stored}. */
    public boolean samePayload(byte[] stored, byte[] digest) {
        return payloadSameAsKey || Arrays.equals(stored, digest);
    }

    /** Start of the aligned bucket holding {@code nowMillis}: windows are aligned to local time in the zone. */
    long windowStart(long nowMillis) {
        long offsetMillis = zone.getRules().getOffset(Instant.ofEpochMilli(nowMillis)).getTotalSeconds() * 1000L;
        long local = nowMillis + offsetMillis;
        return Math.floorDiv(local, windowMillis) * windowMillis - offsetMillis;
    }

    private String renderScope(Object[] args) {
        try {
            return scope.render(args);
        } catch (UnencodableValueException e) {
            throw new IdempotencyKeyException(operation + ": " + e.getMessage());
        }
    }

    private void encodeSources(CanonicalEncoder encoder, KeySource[] sources, Object[] args) {
        encoder.writeByte(CanonicalEncoder.LIST);
        encoder.writeInt(sources.length);
        for (KeySource source : sources) {
            Object value;
            try {
                value = source.valueIn(args);
                encoder.encode(value, source);
            } catch (UnencodableValueException e) {
                throw new IdempotencyKeyException(operation + ": parameter " + source.describe() + " cannot be"
                        + " encoded into a key: " + e.getMessage() + ". Mark the key parameters with"
                        + " @IdempotencyKey (or list them in key = {...}) to leave it out, or register a"
                        + " KeyCanonicalizer for its type.");
            }
        }
    }

    private static boolean sameSources(KeySource[] a, KeySource[] b) {
        if (a.length != b.length) {
            return false;
        }
        for (int i = 0; i < a.length; i++) {
            if (!a[i].sameAs(b[i])) {
                return false;
            }
        }
        return true;
    }
}
