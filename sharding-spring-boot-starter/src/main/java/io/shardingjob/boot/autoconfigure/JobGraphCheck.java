package io.shardingjob.boot.autoconfigure;

import io.shardingjob.boot.jobs.ShardedJobConfigurationException;
import io.shardingjob.boot.jobs.ShardedJobMethod;
import io.shardingjob.core.StoredJobs;
import io.shardingjob.core.StoredJobs.GraphProblem;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.registry.RegistryCenter;
import io.shardingjob.core.registry.RegistryUnavailableException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Refuses an application's jobs when the graph of jobs following jobs that they join has a problem they bring: the graph
 * spans the jobs stored in the namespace (by other services, by run-time definitions, by earlier runs of this one), so
 * it can be checked only once connected, and before any job starts. A problem of the stored jobs alone is left to their
 * services. The failure names the job of this application to change, the property and, for a cycle, its jobs as
 * {@link StoredJobs#problemsJoining} names them.
 */
final class JobGraphCheck {

    private static final String CYCLE = "is in a cycle: ";

    private final ShardingProperties properties;

    JobGraphCheck(ShardingProperties properties) {
        this.properties = properties;
    }

    /**
     * @param jobs the jobs joining the namespace's graph, each with the method that declares it
     * @throws ShardedJobConfigurationException for the first problem they bring, naming the others too
     */
    void check(RegistryCenter registry, Map<ShardedJobMethod, JobConfiguration> jobs) {
        if (jobs.isEmpty()) {
            return;
        }
        List<GraphProblem> problems;
        try {
            problems = StoredJobs.problemsJoining(registry.client(), jobs.values());
        } catch (RuntimeException ex) {
            throw ex;
        } catch (Exception ex) {
            throw new RegistryUnavailableException(
                    "Could not read the jobs stored in the namespace to check which jobs follow which", ex);
        }
        if (!problems.isEmpty()) {
            throw refusal(jobs, problems);
        }
    }

    private ShardedJobConfigurationException refusal(
            Map<ShardedJobMethod, JobConfiguration> jobs, List<GraphProblem> all) {
        GraphProblem problem = all.get(0);
        ShardedJobMethod job = blamed(jobs, problem);
        String key = properties.jobKey(job.jobName()).orElse(job.jobName());
        boolean own = problem.job().equals(job.jobName());
        // A stored item-wise follower whose count no longer matches: the count of this application's job changed.
        String property = own || problem.setting().equals("after") ? problem.setting() : "shardingTotalCount";
        String others = all.size() == 1
                ? ""
                : "; also: "
                        + all.subList(1, all.size()).stream()
                                .map(JobGraphCheck::said)
                                .collect(Collectors.joining("; "));
        return new ShardedJobConfigurationException(
                job.jobName(),
                JobConfigurationResolver.setting(key, property),
                "invalid " + property + " of the job declared by " + job.describe() + ": "
                        + (own ? "" : "job '" + problem.job() + "', stored in the namespace, then ") + said(problem)
                        + others,
                "Set " + JobConfigurationResolver.where(job, key, property) + " to " + fix(job.jobName(), problem)
                        + ".",
                null);
    }

    /** The job of this application the problem is about: its own, or the first it involves. */
    private static ShardedJobMethod blamed(Map<ShardedJobMethod, JobConfiguration> jobs, GraphProblem problem) {
        List<String> involved = involved(problem);
        return jobs.keySet().stream()
                .filter(job -> job.jobName().equals(problem.job()))
                .findFirst()
                .or(() -> involved.stream()
                        .flatMap(name -> jobs.keySet().stream()
                                .filter(job -> job.jobName().equals(name)))
                        .findFirst())
                .orElseGet(() -> jobs.keySet().iterator().next());
    }

    /** The jobs a problem names: those of its cycle, or the one it quotes. */
    private static List<String> involved(GraphProblem problem) {
        String message = problem.message();
        if (message.startsWith(CYCLE)) {
            return Arrays.asList(message.substring(CYCLE.length()).split(" -> "));
        }
        int start = message.indexOf('\'');
        int end = start < 0 ? -1 : message.indexOf('\'', start + 1);
        return end < 0 ? List.of() : List.of(message.substring(start + 1, end));
    }

    private static String said(GraphProblem problem) {
        return "'" + problem.job() + "' " + problem.message();
    }

    private static String fix(String job, GraphProblem problem) {
        if (problem.message().startsWith(CYCLE)) {
            return "jobs that do not follow '" + job + "', directly or through others: leave out one step of the"
                    + " cycle " + problem.message().substring(CYCLE.length());
        }
        if (problem.setting().equals("after")) {
            return "the names of jobs of this application or stored in the namespace (start or define the job it"
                    + " follows first, or correct its name)";
        }
        if (problem.job().equals(job)) {
            return "false, or give it the item count of every job it follows (sharding-total-count)";
        }
        return "the item count of the item-wise jobs that follow it, or make them follow it whole (itemWise false)";
    }
}
