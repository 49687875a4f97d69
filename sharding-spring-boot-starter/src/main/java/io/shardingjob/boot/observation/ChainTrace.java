package io.shardingjob.boot.observation;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * The trace every fire of one chain of jobs joins: its ids derive from the chain's identity, the job whose fire began
 * it and the fire time ({@code ShardingContext.chain()} and {@code fireTime()}), which every instance of every job of
 * the chain knows without being told. A fire's observation reads it as a remote parent through the tracer's propagator,
 * as a message consumer would, so that the fires of a settlement at 02:00 and of the export after it, on whatever
 * instances, are spans of one trace. The parent itself is never reported: tracing back ends are told of a trace whose
 * root span is missing.
 *
 * <p>The propagation fields of W3C trace context and of B3 (single and multiple headers) are answered, so the
 * tracer's configured propagation type reads it. The trace is sampled: fires are few, and a chain is only useful
 * whole.
 *
 * @param traceId 32 lowercase hexadecimal digits
 * @param spanId the remote parent's id, 16 lowercase hexadecimal digits
 */
public record ChainTrace(String traceId, String spanId) {

    /** The trace of the fire at {@code fireTime} of the chain begun by {@code chain}. */
    public static ChainTrace of(String chain, Instant fireTime) {
        byte[] digest = sha256("sharding-chain\n" + chain + "\n" + fireTime.toEpochMilli());
        HexFormat hex = HexFormat.of();
        // An all-zero id is invalid in both formats; one bit set keeps the ids valid and still derived.
        digest[15] |= 1;
        digest[23] |= 1;
        return new ChainTrace(hex.formatHex(digest, 0, 16), hex.formatHex(digest, 16, 24));
    }

    /** The value of one propagation field, as a propagator asks for it; null for a field this trace does not carry. */
    public @Nullable String field(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "traceparent" -> "00-" + traceId + "-" + spanId + "-01";
            case "b3" -> traceId + "-" + spanId + "-1";
            case "x-b3-traceid" -> traceId;
            case "x-b3-spanid" -> spanId;
            case "x-b3-sampled" -> "1";
            default -> null;
        };
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("every Java platform has SHA-256", ex);
        }
    }
}
