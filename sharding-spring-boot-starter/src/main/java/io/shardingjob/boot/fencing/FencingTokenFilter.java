package io.shardingjob.boot.fencing;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Admits a call from a sharded job's run only while no later owner of the run's item called: a request carrying
 * {@link FencingHeaders} has its token admitted by a {@link JdbcFenceStore} under the key {@code job/item}, and is
 * refused with 409 Conflict when a higher token was admitted before, so that a run taken over while its process was
 * paused (a zombie) cannot undo its successor's call. The refusal is an RFC 9457 problem naming the job, the item, the
 * refused token and the highest one, which {@link FencingTokenInterceptor} turns into a {@code FencedOutException}.
 *
 * <p>A request without the headers passes, unless they are required (then 428 Precondition Required); a request with
 * only some of them, or with an item or token that is not a number, gets 400 Bad Request. The admission commits before
 * the request is handled: a zombie admitted just before its successor may still be handled after it, as with any
 * admission made before a write outside the store's database.
 */
public final class FencingTokenFilter extends OncePerRequestFilter {

    /** The RFC 9457 problem type of a refusal, a tag URI: it names the problem and is not meant to be fetched. */
    public static final String FENCED_OUT_TYPE = "tag:shardingjob.io,2026:fenced-out";

    private final JdbcFenceStore store;
    private final boolean required;

    /** @param required whether a request without the headers is refused rather than passed */
    public FencingTokenFilter(JdbcFenceStore store, boolean required) {
        this.store = store;
        this.required = required;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String job = request.getHeader(FencingHeaders.JOB);
        String item = request.getHeader(FencingHeaders.ITEM);
        String token = request.getHeader(FencingHeaders.TOKEN);
        if (job == null && item == null && token == null) {
            if (required) {
                problem(response, HttpStatus.PRECONDITION_REQUIRED, "about:blank", "This service takes calls from"
                        + " sharded jobs only, with the headers " + FencingHeaders.JOB + ", " + FencingHeaders.ITEM
                        + " and " + FencingHeaders.TOKEN, Map.of());
                return;
            }
            chain.doFilter(request, response);
            return;
        }
        if (job == null || job.isBlank() || item == null || token == null) {
            badRequest(response, "A fenced call carries all of " + FencingHeaders.JOB + ", " + FencingHeaders.ITEM
                    + " and " + FencingHeaders.TOKEN + "; this one lacks "
                    + (job == null || job.isBlank() ? FencingHeaders.JOB : item == null ? FencingHeaders.ITEM
                    : FencingHeaders.TOKEN));
            return;
        }
        Integer itemNumber = number(item, Integer::valueOf);
        if (itemNumber == null || itemNumber < 0) {
            badRequest(response, FencingHeaders.ITEM + " must be an item number (0, 1, ...), not '" + item + "'");
            return;
        }
        Long tokenNumber = number(token, Long::valueOf);
        if (tokenNumber == null) {
            badRequest(response, FencingHeaders.TOKEN + " must be a whole number, not '" + token + "'");
            return;
        }
        String key = JdbcFenceStore.keyOf(job, itemNumber);
        if (store.admit(key, tokenNumber)) {
            chain.doFilter(request, response);
            return;
        }
        long highest = store.highest(key).orElse(tokenNumber);
        response.setHeader(FencingHeaders.FENCED_OUT, Long.toString(highest));
        Map<String, Object> members = new LinkedHashMap<>();
        members.put("job", job);
        members.put("item", itemNumber);
        members.put("token", tokenNumber);
        members.put("highestToken", highest);
        problem(response, HttpStatus.CONFLICT, FENCED_OUT_TYPE, "Job '" + job + "': item " + itemNumber
                + "'s fencing token " + tokenNumber + " is below " + highest + ", which a later owner of the item"
                + " called with; this call was refused", members);
    }

    private static <N> @Nullable N number(String text, java.util.function.Function<String, N> parse) {
        try {
            return parse.apply(text.trim());
        } catch (NumberFormatException ex) {
            return null;
        }
    }

    private static void badRequest(HttpServletResponse response, String detail) throws IOException {
        problem(response, HttpStatus.BAD_REQUEST, "about:blank", detail, Map.of());
    }

    /** Writes an RFC 9457 problem; by hand, since the application may have no JSON library. */
    private static void problem(
            HttpServletResponse response, HttpStatus status, String type, String detail, Map<String, Object> members)
            throws IOException {
        StringBuilder json = new StringBuilder("{\"type\":")
                .append(quoted(type))
                .append(",\"title\":")
                .append(quoted(FENCED_OUT_TYPE.equals(type) ? "Fenced out" : status.getReasonPhrase()))
                .append(",\"status\":")
                .append(status.value())
                .append(",\"detail\":")
                .append(quoted(detail));
        members.forEach((name, value) -> json.append(',')
                .append(quoted(name))
                .append(':')
                .append(value instanceof Number ? value.toString() : quoted(value.toString())));
        byte[] body = json.append('}').toString().getBytes(StandardCharsets.UTF_8);
        response.setStatus(status.value());
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    private static String quoted(String text) {
        StringBuilder quoted = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        quoted.append(String.format("\\u%04x", (int) c));
                    } else {
                        quoted.append(c);
                    }
                }
            }
        }
        return quoted.append('"').toString();
    }
}
