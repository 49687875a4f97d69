package io.shardingjob.sample.e2e;

import io.shardingjob.core.testing.ProcessGroup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;

/** What each drill showed, printed and appended to {@code target/e2e/timings.txt}. */
final class Timings {

    private Timings() {}

    static long millisSince(Instant start) {
        return Duration.between(start, Instant.now()).toMillis();
    }

    static synchronized void report(String drill, String finding) {
        String line = "[e2e] " + drill + ": " + finding;
        System.out.println(line);
        try {
            Files.writeString(
                    ProcessGroup.workDirectory("").resolve("timings.txt"),
                    line + System.lineSeparator(),
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
