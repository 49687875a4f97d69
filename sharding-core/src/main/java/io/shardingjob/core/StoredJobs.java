package io.shardingjob.core;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.internal.config.JobGraph;
import io.shardingjob.core.internal.registry.JobConfigurationCodec;
import io.shardingjob.core.internal.registry.JobNodes;
import io.shardingjob.core.internal.requests.ClientRequests;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.x.async.AsyncCuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The jobs stored in a namespace, whichever service declared or defined them: the graph of jobs that follow jobs spans
 * every service of the namespace, so a job is checked against all of them before it runs or is stored.
 */
public final class StoredJobs {

    /**
     * What is wrong with one job's place in the graph of jobs that follow jobs: a job that follows an unknown job or
     * itself, names a job twice, is in a cycle, or is item-wise with another item count than an upstream's.
     *
     * @param job the job whose setting must change
     * @param setting the setting: {@code after} or {@code itemWise}
     * @param message what is wrong, naming the other jobs involved: {@code is in a cycle: a -> c -> b -> a}
     */
    public record GraphProblem(String job, String setting, String message) {}

    private static final Logger log = LoggerFactory.getLogger(StoredJobs.class);

    /** Reads sent before the first is awaited: a few hundred kilobytes of answers at most, however many jobs. */
    static final int READS_IN_FLIGHT = 256;

    private StoredJobs() {}

    /**
     * The stored configuration of every job of the namespace, by name: one read of the root's children, then the jobs'
     * configurations, {@value #READS_IN_FLIGHT} reads on their way at a time rather than one round trip after another
     * (five thousand jobs took five thousand round trips). A child that is no job (the definitions and clock nodes,
     * whose names start with a dot, or a node without a configuration) is skipped, and so is a configuration this
     * version cannot read, with a warning: it is its own service's to fix.
     *
     * @param client the application's client, rooted at its namespace
     */
    public static Map<String, JobConfiguration> configurations(CuratorFramework client) throws Exception {
        Map<String, JobConfiguration> stored = new TreeMap<>();
        List<String> names;
        try {
            names = client.getChildren().forPath("/").stream()
                    .filter(name -> !name.startsWith("."))
                    .toList();
        } catch (KeeperException.NoNodeException empty) {
            return stored;
        }
        // Curator's own reads, not a multi of raw reads: they decompress what a client with compression wrote.
        AsyncCuratorFramework async = AsyncCuratorFramework.wrap(client);
        for (int from = 0; from < names.size(); from += READS_IN_FLIGHT) {
            List<String> batch = names.subList(from, Math.min(names.size(), from + READS_IN_FLIGHT));
            List<CompletableFuture<byte[]>> reads = batch.stream()
                    .map(name ->
                            async.getData().forPath(new JobNodes(name).config()).toCompletableFuture())
                    .toList();
            for (int i = 0; i < batch.size(); i++) {
                String name = batch.get(i);
                try {
                    stored.put(name, JobConfigurationCodec.decode(name, ClientRequests.await(reads.get(i))));
                } catch (KeeperException.NoNodeException noJob) {
                    // A node another tool put there, or a job whose removal is deleting its state.
                } catch (JobConfigurationException unreadable) {
                    log.warn("Job {}: its stored configuration cannot be read, so it is left out of the graph", name);
                }
            }
        }
        return stored;
    }

    /**
     * The problems the jobs bring to the graph of the namespace's jobs, each replacing a stored job of its name: those
     * of the graph with them that the graph without them does not have already (a stored job that follows a job nobody
     * declares any more is its own service's problem); none when they may join. Problems come by job, then as found.
     */
    public static List<GraphProblem> problemsJoining(CuratorFramework client, Collection<JobConfiguration> joining)
            throws Exception {
        return JobGraph.problemsJoining(nodes(configurations(client).values()), nodes(joining)).stream()
                .map(problem -> new GraphProblem(problem.job(), problem.setting(), problem.message()))
                .toList();
    }

    /**
     * The jobs that follow each of these jobs, by its name: a job named in some {@code after}, with the jobs that name
     * it, sorted. A job no job follows has no entry.
     */
    public static Map<String, List<String>> followers(Collection<JobConfiguration> configurations) {
        JobGraph graph = JobGraph.of(nodes(configurations));
        Map<String, List<String>> followers = new TreeMap<>();
        configurations.stream()
                .flatMap(configuration -> configuration.after().stream())
                .distinct()
                .forEach(upstream -> followers.put(upstream, graph.followersOf(upstream)));
        return followers;
    }

    /**
     * Refuses a job whose place in the graph of the namespace's jobs is bad, naming the job and the setting of the
     * first problem and the job that has it when that is another ({@code itemWise} of a follower, say).
     */
    static void refuseProblemsJoining(CuratorFramework client, JobConfiguration configuration) throws Exception {
        List<GraphProblem> problems = problemsJoining(client, List.of(configuration));
        if (!problems.isEmpty()) {
            GraphProblem first = problems.get(0);
            String whose = first.job().equals(configuration.name()) ? "" : "job '" + first.job() + "' then ";
            throw new JobConfigurationException(configuration.name(), first.setting(), whose + first.message());
        }
    }

    static void refuseProblemsJoiningUnchecked(CuratorFramework client, JobConfiguration configuration) {
        try {
            refuseProblemsJoining(client, configuration);
        } catch (RuntimeException ex) {
            throw ex;
        } catch (Exception ex) {
            throw new IllegalStateException(
                    "Job '" + configuration.name() + "': could not read the namespace's jobs to check the change", ex);
        }
    }

    private static List<JobGraph.Node> nodes(Collection<JobConfiguration> configurations) {
        return configurations.stream().map(JobGraph.Node::of).toList();
    }
}
