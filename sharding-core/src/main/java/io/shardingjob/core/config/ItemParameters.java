package io.shardingjob.core.config;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The per-item parameters of a job, written {@code 0=Beijing,1=Shanghai,2=Guangzhou}. Items without a parameter get
 * none; a parameter may be empty ({@code 3=}) but an entry may not repeat an item or name one outside the count.
 */
public final class ItemParameters {

    private static final ItemParameters NONE = new ItemParameters(Map.of());
    private final Map<Integer, String> byItem;

    private ItemParameters(Map<Integer, String> byItem) {
        this.byItem = Collections.unmodifiableMap(new TreeMap<>(byItem));
    }

    public static ItemParameters none() {
        return NONE;
    }

    /**
     * Parses the seed format and checks every item against the count.
     *
     * @throws JobConfigurationException naming the job and {@code shardingItemParameters}
     */
    public static ItemParameters parse(String jobName, String text, int shardingTotalCount) {
        if (text == null || text.isBlank()) {
            return NONE;
        }
        Map<Integer, String> byItem = new TreeMap<>();
        for (String entry : text.split(",", -1)) {
            String trimmed = entry.trim();
            int equals = trimmed.indexOf('=');
            if (equals <= 0) {
                throw invalid(
                        jobName, "'" + trimmed + "' is not of the form item=parameter, as in 0=Beijing,1=Shanghai");
            }
            int item = parseItem(jobName, trimmed.substring(0, equals).trim());
            if (item < 0 || item >= shardingTotalCount) {
                throw invalid(
                        jobName,
                        "item " + item + " is outside 0.." + (shardingTotalCount - 1) + " (shardingTotalCount is "
                                + shardingTotalCount + ")");
            }
            if (byItem.putIfAbsent(item, trimmed.substring(equals + 1).trim()) != null) {
                throw invalid(jobName, "item " + item + " is given twice");
            }
        }
        return new ItemParameters(byItem);
    }

    private static int parseItem(String jobName, String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException ex) {
            throw invalid(jobName, "'" + text + "' is not an item number");
        }
    }

    private static JobConfigurationException invalid(String jobName, String problem) {
        return new JobConfigurationException(jobName, "shardingItemParameters", problem);
    }

    /** The parameter of an item, or the empty string when it has none. */
    public String get(int item) {
        return byItem.getOrDefault(item, "");
    }

    /** Every item that has a parameter, ascending. */
    public Map<Integer, String> asMap() {
        return byItem;
    }

    /** The seed format, items ascending; parsing it gives an equal value. */
    @Override
    public String toString() {
        return byItem.entrySet().stream()
                .map(entry -> entry.getKey() + "=" + entry.getValue())
                .collect(Collectors.joining(","));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ItemParameters that && byItem.equals(that.byItem);
    }

    @Override
    public int hashCode() {
        return byItem.hashCode();
    }
}
