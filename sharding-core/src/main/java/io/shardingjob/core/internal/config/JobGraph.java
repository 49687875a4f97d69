package io.shardingjob.core.internal.config;

import io.shardingjob.core.config.JobConfiguration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The jobs that follow other jobs, as one graph, checked as a whole since no single job's settings show a cycle. A job
 * that follows an unknown job or itself, a cycle of jobs, and an item-wise job whose item count differs from an
 * upstream's are refused, each {@link Problem} naming the job and the setting to change. The starter checks an
 * application's jobs at start-up, and a job defined at run time is checked against the graph it would join, both
 * through {@code StoredJobs}, its public face, so that the rule stays internal.
 */
public final class JobGraph {

    /** One job as the graph sees it; item-wise, its item i runs as soon as item i of the upstream fire succeeded. */
    public record Node(String name, List<String> after, boolean itemWise, int itemCount) {

        public Node {
            Objects.requireNonNull(name, "name");
            after = List.copyOf(after);
        }

        public static Node of(JobConfiguration configuration) {
            return new Node(
                    configuration.name(),
                    configuration.after(),
                    configuration.itemWise(),
                    configuration.shardingTotalCount());
        }
    }

    /** What is wrong with one job's place in the graph, and which setting of it to change: after or itemWise. */
    public record Problem(String job, String setting, String message) {}

    private final Map<String, Node> nodes;

    private JobGraph(Map<String, Node> nodes) {
        this.nodes = nodes;
    }

    /** The graph of these jobs; a name given twice keeps its last node. */
    public static JobGraph of(Collection<Node> nodes) {
        Map<String, Node> byName = new TreeMap<>();
        nodes.forEach(node -> byName.put(node.name(), node));
        return new JobGraph(byName);
    }

    /**
     * The problems that jobs joining a graph (an application's at start-up, or one defined or changed) bring to it:
     * those of the graph with them that the graph without them does not have already. A joining job replaces a job of
     * its name. A job stored long ago that follows a job nobody declares any more is its own service's problem, not a
     * reason to refuse a job that has nothing to do with it; a cycle the joining jobs close, or an item count that no
     * longer matches, is theirs.
     */
    public static List<Problem> problemsJoining(Collection<Node> others, Collection<Node> joining) {
        Set<String> joiningNames = new HashSet<>();
        joining.forEach(node -> joiningNames.add(node.name()));
        List<Node> without = others.stream()
                .filter(node -> !joiningNames.contains(node.name()))
                .toList();
        List<Node> with = new ArrayList<>(without);
        with.addAll(joining);
        List<Problem> before = JobGraph.of(without).problems();
        return JobGraph.of(with).problems().stream()
                .filter(problem -> !before.contains(problem))
                .toList();
    }

    /** The jobs that name {@code job} in their {@code after}, sorted. */
    public List<String> followersOf(String job) {
        return nodes.values().stream()
                .filter(node -> node.after().contains(job))
                .map(Node::name)
                .toList();
    }

    /** Every problem of the graph, by job and then as found: none when every job may follow the ones it names. */
    public List<Problem> problems() {
        List<Problem> problems = new ArrayList<>();
        for (Node node : nodes.values()) {
            Set<String> seen = new HashSet<>();
            for (String upstream : node.after()) {
                if (!seen.add(upstream)) {
                    problems.add(new Problem(node.name(), "after", "names '" + upstream + "' twice"));
                } else if (upstream.equals(node.name())) {
                    problems.add(new Problem(node.name(), "after", "follows itself"));
                } else if (!nodes.containsKey(upstream)) {
                    problems.add(new Problem(
                            node.name(),
                            "after",
                            "follows '" + upstream + "', which is no job of this application nor stored in the"
                                    + " namespace"));
                }
            }
            if (node.itemWise() && node.after().isEmpty()) {
                problems.add(new Problem(node.name(), "itemWise", "is item-wise but follows no job"));
            }
            if (node.itemWise()) {
                for (String upstream : new LinkedHashSet<>(node.after())) {
                    Node other = nodes.get(upstream);
                    if (other != null && other.itemCount() != node.itemCount()) {
                        problems.add(new Problem(
                                node.name(),
                                "itemWise",
                                "has " + node.itemCount() + " items and follows '" + upstream + "', which has "
                                        + other.itemCount() + ": item-wise jobs need the same number of items"));
                    }
                }
            }
        }
        for (List<String> cycle : cycles()) {
            problems.add(new Problem(cycle.get(0), "after", "is in a cycle: " + String.join(" -> ", cycle)));
        }
        return problems;
    }

    /**
     * The cycles of two jobs or more, one per strongly connected group of jobs: each a path that starts and ends at the
     * group's first job by name, each step from a job to a job it follows.
     */
    List<List<String>> cycles() {
        List<List<String>> cycles = new ArrayList<>();
        for (Set<String> group : stronglyConnected()) {
            if (group.size() > 1) {
                cycles.add(pathWithin(group));
            }
        }
        return cycles;
    }

    /** Tarjan's algorithm over the edges from a job to the known jobs it follows, without recursion. */
    private List<Set<String>> stronglyConnected() {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new HashSet<>();
        List<Set<String>> groups = new ArrayList<>();
        int[] counter = {0};
        for (String start : nodes.keySet()) {
            if (index.containsKey(start)) {
                continue;
            }
            Deque<Frame> frames = new ArrayDeque<>();
            frames.push(new Frame(start, upstreams(start).iterator()));
            index.put(start, counter[0]);
            low.put(start, counter[0]++);
            stack.push(start);
            onStack.add(start);
            while (!frames.isEmpty()) {
                Frame frame = frames.peek();
                if (frame.edges().hasNext()) {
                    String to = frame.edges().next();
                    if (!index.containsKey(to)) {
                        index.put(to, counter[0]);
                        low.put(to, counter[0]++);
                        stack.push(to);
                        onStack.add(to);
                        frames.push(new Frame(to, upstreams(to).iterator()));
                    } else if (onStack.contains(to)) {
                        low.put(frame.job(), Math.min(low.get(frame.job()), index.get(to)));
                    }
                    continue;
                }
                frames.pop();
                if (!frames.isEmpty()) {
                    String parent = frames.peek().job();
                    low.put(parent, Math.min(low.get(parent), low.get(frame.job())));
                }
                if (low.get(frame.job()).equals(index.get(frame.job()))) {
                    Set<String> group = new HashSet<>();
                    String member;
                    do {
                        member = stack.pop();
                        onStack.remove(member);
                        group.add(member);
                    } while (!member.equals(frame.job()));
                    groups.add(group);
                }
            }
        }
        return groups;
    }

    /** A cycle through the group's first job by name, found by a breadth-first search inside the group. */
    private List<String> pathWithin(Set<String> group) {
        String first = group.stream().sorted().findFirst().orElseThrow();
        Map<String, String> cameFrom = new HashMap<>();
        Deque<String> queue = new ArrayDeque<>(List.of(first));
        while (!queue.isEmpty()) {
            String job = queue.poll();
            for (String to : upstreams(job)) {
                if (!group.contains(to)) {
                    continue;
                }
                if (to.equals(first)) {
                    List<String> path = new ArrayList<>(List.of(first));
                    for (String at = job; !at.equals(first); at = cameFrom.get(at)) {
                        path.add(1, at);
                    }
                    path.add(first);
                    return path;
                }
                if (!cameFrom.containsKey(to)) {
                    cameFrom.put(to, job);
                    queue.add(to);
                }
            }
        }
        throw new IllegalStateException("a strongly connected group without a cycle: " + group);
    }

    private List<String> upstreams(String job) {
        return nodes.get(job).after().stream()
                .filter(nodes::containsKey)
                .filter(upstream -> !upstream.equals(job))
                .distinct()
                .sorted()
                .toList();
    }

    /** Where the walk of one job stands: the edges it has yet to follow. */
    private record Frame(String job, Iterator<String> edges) {}
}
