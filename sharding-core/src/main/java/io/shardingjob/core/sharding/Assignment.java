package io.shardingjob.core.sharding;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.stream.IntStream;

/**
 * Who runs which item, under which epoch. The epoch grows by one with every assignment the leader writes; it is the
 * fencing token: an instance starts an item only if it owns it under the current epoch.
 *
 * <p>Stored as one node, so that a reshard costs the same few ZooKeeper round trips whatever the item count, in a text
 * form an operator can read in zkCli:
 *
 * <pre>
 * epoch=7
 * shardingTotalCount=10
 * assigned.10.0.0.5@-@4242=0-2,9
 * assigned.10.0.0.6@-@4243=3-5
 * </pre>
 *
 * @param epoch the fencing token; 0 means never sharded
 * @param shardingTotalCount the count the assignment was made for
 * @param itemsByInstance every instance that took part, with its ascending items (possibly none)
 */
public record Assignment(long epoch, int shardingTotalCount, Map<String, List<Integer>> itemsByInstance) {

    private static final String OWNER_PREFIX = "assigned.";

    /** The state of a job that was never sharded. */
    public static final Assignment NONE = new Assignment(0, 0, Map.of());

    public Assignment {
        Map<String, List<Integer>> copy = new TreeMap<>();
        itemsByInstance.forEach((instance, items) -> copy.put(instance, List.copyOf(items)));
        itemsByInstance = Collections.unmodifiableMap(copy);
    }

    /** The items of one instance, ascending; empty if it owns none. */
    public List<Integer> itemsOf(String instanceId) {
        return itemsByInstance.getOrDefault(instanceId, List.of());
    }

    /** Item to owner, for every assigned item. */
    public Map<Integer, String> ownersByItem() {
        Map<Integer, String> owners = new TreeMap<>();
        itemsByInstance.forEach((instance, items) -> items.forEach(item -> owners.put(item, instance)));
        return owners;
    }

    public byte[] encode() {
        StringBuilder text = new StringBuilder();
        text.append("epoch=").append(epoch).append('\n');
        text.append("shardingTotalCount=").append(shardingTotalCount).append('\n');
        itemsByInstance.forEach((instance, items) -> text.append(OWNER_PREFIX)
                .append(instance)
                .append('=')
                .append(ranges(items))
                .append('\n'));
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** @throws IllegalArgumentException when the text is not an assignment */
    public static Assignment decode(byte[] data) {
        long epoch = 0;
        int total = 0;
        Map<String, List<Integer>> items = new LinkedHashMap<>();
        for (String line : new String(data, StandardCharsets.UTF_8).split("\n")) {
            int equals = line.lastIndexOf('=');
            if (line.isBlank()) {
                continue;
            }
            if (equals < 0) {
                throw new IllegalArgumentException("Not an assignment line: '" + line + "'");
            }
            String key = line.substring(0, equals);
            String value = line.substring(equals + 1).trim();
            if (key.equals("epoch")) {
                epoch = Long.parseLong(value);
            } else if (key.equals("shardingTotalCount")) {
                total = Integer.parseInt(value);
            } else if (key.startsWith(OWNER_PREFIX)) {
                items.put(key.substring(OWNER_PREFIX.length()), parseRanges(value));
            }
        }
        return new Assignment(epoch, total, items);
    }

    /** Ascending items as runs, {@code 0-2,9}. */
    private static String ranges(List<Integer> items) {
        StringJoiner text = new StringJoiner(",");
        for (int i = 0; i < items.size(); i++) {
            int start = items.get(i);
            while (i + 1 < items.size() && items.get(i + 1) == items.get(i) + 1) {
                i++;
            }
            text.add(items.get(i) > start ? start + "-" + items.get(i) : String.valueOf(start));
        }
        return text.toString();
    }

    private static List<Integer> parseRanges(String text) {
        List<Integer> items = new ArrayList<>();
        if (text.isEmpty()) {
            return items;
        }
        for (String range : text.split(",")) {
            String[] bounds = range.split("-", 2);
            int start = Integer.parseInt(bounds[0].trim());
            int end = bounds.length == 1 ? start : Integer.parseInt(bounds[1].trim());
            IntStream.rangeClosed(start, end).forEach(items::add);
        }
        return items;
    }
}
