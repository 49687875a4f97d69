package io.shardingjob.boot.fencing;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;

/**
 * What a fenced service answers a call, given its {@link FencingHeaders}, for the servlet and the reactive filter
 * alike: go on, or a refusal as an RFC 9457 problem. Checking admits the call's token in the store, which blocks.
 */
final class FencedCallAdmission {

    private final JdbcFenceStore store;
    private final boolean required;

    FencedCallAdmission(JdbcFenceStore store, boolean required) {
        this.store = store;
        this.required = required;
    }

    /** The refusal of a call with these header values, or null when it may go on. */
    @Nullable
    Refusal check(@Nullable String job, @Nullable String item, @Nullable String token) {
        if (job == null && item == null && token == null) {
            return required
                    ? Refusal.of(
                            HttpStatus.PRECONDITION_REQUIRED,
                            "This service takes calls from sharded jobs only,"
                                    + " with the headers " + FencingHeaders.JOB + ", " + FencingHeaders.ITEM + " and "
                                    + FencingHeaders.TOKEN)
                    : null;
        }
        if (job == null || job.isBlank() || item == null || token == null) {
            String lacking = job == null || job.isBlank()
                    ? FencingHeaders.JOB
                    : item == null ? FencingHeaders.ITEM : FencingHeaders.TOKEN;
            return Refusal.of(
                    HttpStatus.BAD_REQUEST,
                    "A fenced call carries all of " + FencingHeaders.JOB + ", " + FencingHeaders.ITEM + " and "
                            + FencingHeaders.TOKEN + "; this one lacks " + lacking);
        }
        Integer itemNumber = number(item, Integer::valueOf);
        if (itemNumber == null || itemNumber < 0) {
            return Refusal.of(
                    HttpStatus.BAD_REQUEST,
                    FencingHeaders.ITEM + " must be an item number (0, 1, ...), not '" + item + "'");
        }
        Long tokenNumber = number(token, Long::valueOf);
        if (tokenNumber == null) {
            return Refusal.of(
                    HttpStatus.BAD_REQUEST, FencingHeaders.TOKEN + " must be a whole number, not '" + token + "'");
        }
        String key = JdbcFenceStore.keyOf(job, itemNumber);
        if (store.admit(key, tokenNumber)) {
            return null;
        }
        return Refusal.fencedOut(
                job, itemNumber, tokenNumber, store.highest(key).orElse(tokenNumber));
    }

    private static <N> @Nullable N number(String text, Function<String, N> parse) {
        try {
            return parse.apply(text.trim());
        } catch (NumberFormatException ex) {
            return null;
        }
    }

    /**
     * A refused call: its status, the highest token for {@link FencingHeaders#FENCED_OUT} when a later owner's call
     * fenced it out, and the problem's JSON.
     */
    record Refusal(int status, @Nullable Long highestToken, byte[] body) {

        static Refusal of(HttpStatus status, String detail) {
            return new Refusal(
                    status.value(), null, problem(status, "about:blank", status.getReasonPhrase(), detail, Map.of()));
        }

        static Refusal fencedOut(String job, int item, long token, long highest) {
            Map<String, Object> members = new LinkedHashMap<>();
            members.put("job", job);
            members.put("item", item);
            members.put("token", token);
            members.put("highestToken", highest);
            String detail = "Job '" + job + "': item " + item + "'s fencing token " + token + " is below " + highest
                    + ", which a later owner of the item called with; this call was refused";
            return new Refusal(
                    HttpStatus.CONFLICT.value(),
                    highest,
                    problem(HttpStatus.CONFLICT, FencingTokenFilter.FENCED_OUT_TYPE, "Fenced out", detail, members));
        }

        /** An RFC 9457 problem, written by hand since the application may have no JSON library. */
        private static byte[] problem(
                HttpStatus status, String type, String title, String detail, Map<String, Object> members) {
            StringBuilder json = new StringBuilder("{\"type\":")
                    .append(quoted(type))
                    .append(",\"title\":")
                    .append(quoted(title))
                    .append(",\"status\":")
                    .append(status.value())
                    .append(",\"detail\":")
                    .append(quoted(detail));
            members.forEach((name, value) -> json.append(',')
                    .append(quoted(name))
                    .append(':')
                    .append(value instanceof Number ? value.toString() : quoted(value.toString())));
            return json.append('}').toString().getBytes(StandardCharsets.UTF_8);
        }

        private static String quoted(String text) {
            StringBuilder quoted = new StringBuilder("\"");
            for (char c : text.toCharArray()) {
                if (c == '"' || c == '\\') {
                    quoted.append('\\').append(c);
                } else if (c < 0x20) {
                    quoted.append(String.format("\\u%04x", (int) c));
                } else {
                    quoted.append(c);
                }
            }
            return quoted.append('"').toString();
        }
    }
}
