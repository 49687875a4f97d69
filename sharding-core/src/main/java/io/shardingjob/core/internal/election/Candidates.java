package io.shardingjob.core.internal.election;

import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Who leads, from the names of the candidates' nodes under the job's latch: the one ZooKeeper numbered first. A
 * candidate's node is ephemeral and sequential, named {@code _c_{guid}-latch-{sequence}} as Curator's {@code
 * LeaderLatch} names its own, so that instances of either kind stand in one election. The guid names one attempt to
 * stand, so that an attempt whose answer was lost with the connection can find its node.
 */
final class Candidates {

    private static final Pattern NAME = Pattern.compile("_c_(.+)-latch-(\\d+)");

    private Candidates() {}

    /** ZooKeeper appends the sequence. */
    public static String prefix(String guid) {
        return "_c_" + guid + "-latch-";
    }

    /** The candidate ZooKeeper numbered first, if any: the leader. Names of any other form stand for nobody. */
    public static Optional<String> leader(Collection<String> names) {
        return names.stream()
                .filter(name -> NAME.matcher(name).matches())
                .min(Comparator.comparingLong(Candidates::sequence));
    }

    /** Whether the candidate {@code ours} leads among {@code names}; never when it is not among them. */
    public static boolean leads(String ours, Collection<String> names) {
        return names.contains(ours) && leader(names).map(ours::equals).orElse(false);
    }

    /** The node an attempt to stand created, found by its guid; empty when that attempt created none. */
    public static Optional<String> ofAttempt(String guid, Collection<String> names) {
        return names.stream()
                .filter(name -> {
                    Matcher matcher = NAME.matcher(name);
                    return matcher.matches() && matcher.group(1).equals(guid);
                })
                .findFirst();
    }

    private static long sequence(String name) {
        Matcher matcher = NAME.matcher(name);
        if (!matcher.matches()) {
            throw new IllegalArgumentException("Not a candidate's node: " + name);
        }
        return Long.parseLong(matcher.group(2));
    }
}
