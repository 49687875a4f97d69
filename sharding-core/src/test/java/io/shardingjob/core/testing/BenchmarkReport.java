package io.shardingjob.core.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The figures of one benchmark: tables in Markdown, printed to standard output and written to
 * {@code <benchmark.output>/<name>.md} (by default {@code target/benchmarks} of the module that ran it).
 */
public final class BenchmarkReport {

    private final String name;

    private final StringBuilder text = new StringBuilder();

    private List<String> columns = List.of();

    private final List<List<String>> rows = new ArrayList<>();

    public BenchmarkReport(String name, String description) {
        this.name = name;
        text.append("## ").append(name).append("\n\n").append(description).append("\n\n");
        text.append("Machine: ")
                .append(machine())
                .append("; run ")
                .append(now())
                .append(".\n\n");
    }

    /** Starts a table; rows added next belong to it. */
    public BenchmarkReport table(String... columns) {
        flushTable();
        this.columns = List.of(columns);
        return this;
    }

    public BenchmarkReport row(Object... cells) {
        if (cells.length != columns.size()) {
            throw new IllegalArgumentException("Expected " + columns.size() + " cells: " + Arrays.toString(cells));
        }
        rows.add(Arrays.stream(cells).map(BenchmarkReport::format).toList());
        // Printed as it comes, so that a long benchmark shows progress.
        System.out.println("[" + name + "] " + String.join(" | ", rows.get(rows.size() - 1)));
        return this;
    }

    /** A paragraph under the tables: the goal, the anchor, what a figure means. */
    public BenchmarkReport note(String note) {
        flushTable();
        text.append(note).append("\n\n");
        return this;
    }

    /** Prints the whole report and writes it to its file. */
    public Path write() {
        flushTable();
        String report = text.toString();
        System.out.println(report);
        Path directory = Path.of(System.getProperty("benchmark.output", "target/benchmarks"));
        try {
            Files.createDirectories(directory);
            Path file = directory.resolve(name.replaceAll("[^A-Za-z0-9]+", "-").toLowerCase(Locale.ROOT) + ".md");
            Files.writeString(file, report);
            System.out.println("Written to " + file.toAbsolutePath());
            return file;
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    private void flushTable() {
        if (columns.isEmpty()) {
            return;
        }
        text.append("| ").append(String.join(" | ", columns)).append(" |\n");
        text.append(columns.stream().map(column -> "---").collect(Collectors.joining("|", "|", "|")))
                .append("\n");
        for (List<String> row : rows) {
            text.append("| ").append(String.join(" | ", row)).append(" |\n");
        }
        text.append("\n");
        columns = List.of();
        rows.clear();
    }

    private static String format(Object cell) {
        if (cell instanceof Double value) {
            return String.format(Locale.ROOT, value >= 100 ? "%.0f" : value >= 10 ? "%.1f" : "%.2f", value);
        }
        return String.valueOf(cell);
    }

    private static String machine() {
        return Runtime.getRuntime().availableProcessors() + " cores, "
                + System.getProperty("os.name") + " " + System.getProperty("os.arch") + ", Java "
                + System.getProperty("java.version") + ", max heap "
                + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB, "
                + ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                        .filter(argument -> argument.startsWith("-XX:+Use"))
                        .collect(Collectors.joining(" "));
    }

    private static String now() {
        return LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm"));
    }

    /** The {@code p}-th percentile (0..100) of the values, nearest rank. */
    public static double percentile(List<Double> values, double p) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Double> sorted = values.stream().sorted().toList();
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }
}
