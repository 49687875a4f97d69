package io.shardingjob.core.internal.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.internal.config.JobGraph.Node;
import io.shardingjob.core.internal.config.JobGraph.Problem;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** A graph of jobs that follow jobs is refused for what is wrong with it, naming the job and the setting. */
class JobGraphTest {

    private static Node job(String name, int items, String... after) {
        return new Node(name, List.of(after), false, items);
    }

    private static Node itemWise(String name, int items, String... after) {
        return new Node(name, List.of(after), true, items);
    }

    @Test
    void aChainAndAFanInOfKnownJobsHaveNoProblem() {
        JobGraph graph = JobGraph.of(List.of(
                job("settle", 4),
                job("rates", 1),
                itemWise("export", 4, "settle"),
                job("report", 1, "export", "rates")));

        assertThat(graph.problems()).isEmpty();
        assertThat(graph.followersOf("settle")).containsExactly("export");
        assertThat(graph.followersOf("rates")).containsExactly("report");
    }

    @Test
    void eachWrongPlaceInTheGraphIsNamedByItsJobAndSetting() {
        JobGraph graph = JobGraph.of(List.of(
                job("settle", 4),
                job("loop", 1, "loop"),
                job("orphan", 1, "nowhere"),
                job("twice", 1, "settle", "settle"),
                itemWise("alone", 2),
                itemWise("export", 3, "settle")));

        assertThat(graph.problems())
                .containsExactlyInAnyOrder(
                        new Problem("loop", "after", "follows itself"),
                        new Problem(
                                "orphan",
                                "after",
                                "follows 'nowhere', which is no job of this application nor stored in the namespace"),
                        new Problem("twice", "after", "names 'settle' twice"),
                        new Problem("alone", "itemWise", "is item-wise but follows no job"),
                        new Problem(
                                "export",
                                "itemWise",
                                "has 3 items and follows 'settle', which has 4: item-wise jobs need the same number of"
                                        + " items"));
    }

    @Test
    void aCycleIsNamedOnceFromItsFirstJobByName() {
        JobGraph graph = JobGraph.of(List.of(job("c", 1, "b"), job("a", 1, "c"), job("b", 1, "a"), job("d", 1, "a")));

        assertThat(graph.problems()).containsExactly(new Problem("a", "after", "is in a cycle: a -> c -> b -> a"));
    }

    @Test
    void joiningJobsAreRefusedForTheCycleTheyCloseNotForTheProblemsTheOthersHadAlready() {
        List<Node> stored = List.of(job("a", 1, "b"), job("stale", 1, "gone"));

        assertThat(JobGraph.problemsJoining(stored, List.of(job("b", 1, "a"))))
                .containsExactly(new Problem("a", "after", "is in a cycle: a -> b -> a"));
        assertThat(JobGraph.problemsJoining(stored, List.of(job("b", 1)))).isEmpty();
    }

    @Test
    void aJoiningJobReplacesTheJobOfItsName() {
        List<Node> stored = List.of(job("settle", 4), itemWise("export", 4, "settle"));

        assertThat(JobGraph.problemsJoining(stored, List.of(job("settle", 3))))
                .containsExactly(new Problem(
                        "export",
                        "itemWise",
                        "has 4 items and follows 'settle', which has 3: item-wise jobs need the same number of items"));
        assertThat(JobGraph.problemsJoining(stored, List.of(job("export", 4)))).isEmpty();
    }

    /** Jobs 0..n-1 that follow only jobs of a lower number: never a cycle. */
    private static List<Node> acyclic(Random random, int jobs) {
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < jobs; i++) {
            List<String> after = new ArrayList<>();
            for (int j = 0; j < i; j++) {
                if (random.nextInt(3) == 0) {
                    after.add("j" + j);
                }
            }
            nodes.add(new Node("j" + i, after, false, 1 + random.nextInt(3)));
        }
        return nodes;
    }

    @Property(tries = 500)
    void jobsThatFollowOnlyEarlierJobsHaveNoProblemInAnyOrder(
            @ForAll long seed, @ForAll @IntRange(min = 1, max = 12) int jobs) {
        Random random = new Random(seed);
        List<Node> nodes = acyclic(random, jobs);
        Collections.shuffle(nodes, random);

        assertThat(JobGraph.of(nodes).problems()).isEmpty();
    }

    @Property(tries = 500)
    void anEdgeBackAlongAPathMakesACycleOfJobsThatEachFollowTheNext(
            @ForAll long seed, @ForAll @IntRange(min = 2, max = 12) int jobs) {
        Random random = new Random(seed);
        List<Node> nodes = acyclic(random, jobs);
        // A path down from the last job, then an edge from its end back to the last job.
        int from = jobs - 1;
        int at = from;
        Map<String, Node> byName = new HashMap<>();
        nodes.forEach(node -> byName.put(node.name(), node));
        while (!byName.get("j" + at).after().isEmpty() && random.nextBoolean()) {
            List<String> after = byName.get("j" + at).after();
            at = Integer.parseInt(after.get(random.nextInt(after.size())).substring(1));
        }
        Node end = byName.get("j" + at);
        List<String> back = new ArrayList<>(end.after());
        back.add("j" + from);
        byName.put(end.name(), new Node(end.name(), back, false, end.itemCount()));
        List<Node> closed = new ArrayList<>(byName.values());
        Collections.shuffle(closed, random);

        List<Problem> problems = JobGraph.of(closed).problems();

        String expected = at == from ? "follows itself" : "is in a cycle: ";
        assertThat(problems)
                .isNotEmpty()
                .allSatisfy(problem -> assertThat(problem.message()).startsWith(expected));
        for (Problem problem : problems) {
            if (problem.message().startsWith("is in a cycle: ")) {
                List<String> cycle = List.of(
                        problem.message().substring("is in a cycle: ".length()).split(" -> "));
                assertThat(cycle.get(0)).isEqualTo(cycle.get(cycle.size() - 1)).isEqualTo(problem.job());
                assertThat(new HashSet<>(cycle)).hasSize(cycle.size() - 1);
                for (int i = 0; i + 1 < cycle.size(); i++) {
                    assertThat(byName.get(cycle.get(i)).after()).contains(cycle.get(i + 1));
                }
            }
        }
        Set<String> named = new HashSet<>();
        problems.forEach(problem -> named.add(problem.job()));
        assertThat(named).as("one problem per cycle").hasSize(problems.size());
    }
}
