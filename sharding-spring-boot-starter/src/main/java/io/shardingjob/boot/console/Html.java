package io.shardingjob.boot.console;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.web.util.UriUtils;

/**
 * The console's HTML writer. Every value that comes from the registry, the configuration, the log or a request goes
 * through {@link #text} or {@link #attr}, which escape it for both text and quoted attributes: a job parameter of
 * {@code <script>} shows as text, never runs.
 */
final class Html {

    private final StringBuilder out = new StringBuilder(4096);

    /** Appends markup written in this package: never pass a value through here. */
    Html raw(String markup) {
        out.append(markup);
        return this;
    }

    /** Appends a value as text. */
    Html text(@Nullable Object value) {
        out.append(escape(value == null ? "" : value.toString()));
        return this;
    }

    /** Appends {@code  name="value"}, the value escaped. */
    Html attr(String name, @Nullable Object value) {
        out.append(' ').append(name).append("=\"").append(escape(value == null ? "" : value.toString()));
        out.append('"');
        return this;
    }

    /** Appends a {@code <time>} element for an instant: ISO-8601 in the attribute, with how far from now as text. */
    Html time(@Nullable Instant instant, Instant now) {
        if (instant == null) {
            return raw("<span class=\"none\">&#8212;</span>");
        }
        Instant shown = instant.truncatedTo(ChronoUnit.MILLIS);
        return raw("<time")
                .attr("datetime", instant)
                .raw(">")
                .text(shown)
                .raw(" <small>")
                .text(relative(instant, now))
                .raw("</small></time>");
    }

    @Override
    public String toString() {
        return out.toString();
    }

    /** Escapes the five characters that matter in HTML text and in attributes quoted either way. */
    static String escape(String value) {
        StringBuilder escaped = null;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            String replacement = switch (c) {
                case '&' -> "&amp;";
                case '<' -> "&lt;";
                case '>' -> "&gt;";
                case '"' -> "&quot;";
                case '\'' -> "&#39;";
                default -> null;
            };
            if (replacement != null) {
                if (escaped == null) {
                    escaped = new StringBuilder(value.length() + 16).append(value, 0, i);
                }
                escaped.append(replacement);
            } else if (escaped != null) {
                escaped.append(c);
            }
        }
        return escaped == null ? value : escaped.toString();
    }

    /** A job name as a path segment of a link. */
    static String segment(String value) {
        return UriUtils.encodePathSegment(value, StandardCharsets.UTF_8);
    }

    /** A string as a JSON string literal, for the {@code hx-headers} attribute (which is escaped again as a whole). */
    static String json(String value) {
        StringBuilder json = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                json.append('\\').append(c);
            } else if (c < 0x20) {
                json.append(String.format("\\u%04x", (int) c));
            } else {
                json.append(c);
            }
        }
        return json.append('"').toString();
    }

    /** "in 4 s", "12 s ago": enough to see at a glance whether a time is near. */
    static String relative(Instant instant, Instant now) {
        Duration between = Duration.between(now, instant);
        boolean future = !between.isNegative();
        return future ? "in " + human(between) : human(between.negated()) + " ago";
    }

    /** A duration in the largest unit that keeps it readable: 850 ms, 12 s, 5 min, 3 h, 2 d. */
    static String human(Duration duration) {
        long millis = duration.toMillis();
        if (millis < 1000) {
            return millis + " ms";
        }
        long seconds = duration.toSeconds();
        if (seconds < 120) {
            return seconds + " s";
        }
        if (seconds < 2 * 3600) {
            return duration.toMinutes() + " min";
        }
        if (seconds < 2 * 86_400) {
            return duration.toHours() + " h";
        }
        return duration.toDays() + " d";
    }
}
