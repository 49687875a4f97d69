package io.shardingjob.boot.operations;

import io.shardingjob.core.operation.InvalidOperationException;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * How an operator's action ended, the same for the endpoint and the console: performed, or why not, with the HTTP
 * status both answer it with.
 *
 * @param message what happened, or why nothing did, in a sentence
 * @param fireTime the fire's time of a performed trigger
 * @param input the refused input as the core's {@link InvalidOperationException} names it ({@code item},
 *     {@code jobParameter}, ...), when it refused one
 */
public record OperatorOutcome(
        Status status,
        String message,
        @Nullable Instant fireTime,
        @Nullable String input) {

    /** How it ended, with its HTTP status and the word the audit's result starts with. */
    public enum Status {
        /** Done, or started on every instance. */
        PERFORMED(200),
        /** Not allowed: the caller may not operate (writes off, another site, a user without the role). */
        REFUSED(403),
        /** An unknown action, a missing input or one the core refused; nothing was written. */
        BAD_INPUT(400),
        /** No such job here (or, for a definition's action, defined at run time). */
        NO_SUCH_JOB(404),
        /** The job's state does not allow it now: disabled, stopping. */
        CONFLICT(409),
        /** ZooKeeper did not record it. */
        UNAVAILABLE(503),
        /** Anything else. */
        FAILED(500);

        private final int httpStatus;

        Status(int httpStatus) {
            this.httpStatus = httpStatus;
        }

        public int httpStatus() {
            return httpStatus;
        }

        /** {@code ok}, {@code refused} or {@code error}: the audit's word, and the console's {@code data-status}. */
        public String word() {
            return switch (this) {
                case PERFORMED -> "ok";
                case REFUSED -> "refused";
                default -> "error";
            };
        }
    }

    public static OperatorOutcome performed(String message, @Nullable Instant fireTime) {
        return new OperatorOutcome(Status.PERFORMED, message, fireTime, null);
    }

    public static OperatorOutcome refused(String why) {
        return new OperatorOutcome(Status.REFUSED, why, null, null);
    }

    public static OperatorOutcome failed(Status status, String why) {
        return new OperatorOutcome(status, why, null, null);
    }

    /** A 400 with the reason and, when the core's checks refused it, the input. */
    static OperatorOutcome badInput(IllegalArgumentException refused) {
        return new OperatorOutcome(
                Status.BAD_INPUT,
                String.valueOf(refused.getMessage()),
                null,
                refused instanceof InvalidOperationException invalid ? invalid.input() : null);
    }

    /** A 400 refusing this input (a field, as the request named it) for this reason. */
    static OperatorOutcome badInput(String input, String why) {
        return new OperatorOutcome(Status.BAD_INPUT, why, null, input);
    }

    public boolean isPerformed() {
        return status == Status.PERFORMED;
    }

    public int httpStatus() {
        return status.httpStatus();
    }

    /** {@code ok: item 2 disabled}, {@code error: ...}: the audit's {@code result}. */
    public String result() {
        return status.word() + ": " + message;
    }
}
