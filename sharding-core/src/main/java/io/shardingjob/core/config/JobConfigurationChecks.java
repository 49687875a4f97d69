package io.shardingjob.core.config;

import static io.shardingjob.core.config.JobConfiguration.MAX_SHARDING_TOTAL_COUNT;

import java.util.ArrayList;
import java.util.List;

/** The checks of a {@link JobConfiguration} that take more than a line, each naming the job and the setting at fault. */
final class JobConfigurationChecks {

    private JobConfigurationChecks() {}

    /** Spring's cron: six fields, seconds first, so that a five-field Unix cron is not read one field off. */
    static void checkCronFields(String name, String cron) {
        int fields = cron.split("\\s+").length;
        if (fields != 6) {
            throw new JobConfigurationException(
                    name,
                    "cron",
                    "'" + cron + "' has " + fields
                            + " fields; six are needed: second minute hour day-of-month month day-of-week (or '-' for a"
                            + " job that fires only when triggered)");
        }
    }

    static void checkShardingTotalCount(String name, int shardingTotalCount) {
        if (shardingTotalCount < 1) {
            throw new JobConfigurationException(
                    name, "shardingTotalCount", "must be at least 1, was " + shardingTotalCount);
        }
        if (shardingTotalCount > MAX_SHARDING_TOTAL_COUNT) {
            throw new JobConfigurationException(
                    name,
                    "shardingTotalCount",
                    "must be at most " + MAX_SHARDING_TOTAL_COUNT + ", was " + shardingTotalCount
                            + ": the fire ledger keeps a ZooKeeper node per item of every retained fire, and the"
                            + " assignment lists every item in one node under ZooKeeper's 1 MB jute.maxbuffer");
        }
    }

    /**
     * Dynamic sharding and item parameters contradict each other: with dynamic sharding the items follow the live
     * instances (item 0 of 2, then of 3 when an instance joins), so a parameter fixed to an item number would go to
     * whichever instance holds that number now, and the items beyond the list would get none. Checked before the
     * parameters are read against the count, which dynamic sharding does not use.
     */
    static void checkNoItemParametersWithDynamicSharding(String name, boolean dynamicSharding, String itemParameters) {
        if (dynamicSharding && itemParameters != null && !itemParameters.isBlank()) {
            throw new JobConfigurationException(
                    name,
                    "shardingItemParameters",
                    "'" + itemParameters.trim() + "' cannot be combined with dynamicSharding=true: the number of items"
                            + " then follows the number of live instances, so no item has a fixed parameter; leave"
                            + " shardingItemParameters empty, or set dynamicSharding to false to keep a fixed"
                            + " shardingTotalCount with a parameter per item",
                    "dynamicSharding");
        }
    }

    /**
     * The jobs a job follows, trimmed: each a valid job name, none twice, not the job itself.
     *
     * @return the names as an unmodifiable list, empty for null
     */
    static List<String> checkAfter(String name, List<String> after) {
        if (after == null) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        for (String upstream : after) {
            String trimmed = upstream == null ? "" : upstream.trim();
            if (!JobConfiguration.NAME.matcher(trimmed).matches()) {
                throw new JobConfigurationException(
                        name, JobSetting.AFTER.key(), "'" + upstream + "' is not a job name");
            }
            if (trimmed.equals(name)) {
                throw new JobConfigurationException(name, JobSetting.AFTER.key(), "a job cannot follow itself");
            }
            if (names.contains(trimmed)) {
                throw new JobConfigurationException(name, JobSetting.AFTER.key(), "names '" + trimmed + "' twice");
            }
            names.add(trimmed);
        }
        return List.copyOf(names);
    }

    /**
     * Item-wise needs one job to follow (item i follows that job's item i), and fixed items: under dynamic sharding an
     * item is an instance, not data.
     */
    static void checkItemWise(String name, boolean itemWise, List<String> after, boolean dynamicSharding) {
        if (itemWise && after.isEmpty()) {
            throw new JobConfigurationException(
                    name, JobSetting.ITEM_WISE.key(), "needs 'after': item i follows item i of an upstream job");
        }
        if (itemWise && after.size() > 1) {
            throw new JobConfigurationException(
                    name,
                    JobSetting.ITEM_WISE.key(),
                    "follows one job item by item, but 'after' names " + after.size() + ": " + after);
        }
        if (itemWise && dynamicSharding) {
            throw new JobConfigurationException(
                    name,
                    JobSetting.ITEM_WISE.key(),
                    "cannot be used with dynamicSharding: the items would not be the upstream's items");
        }
    }
}
