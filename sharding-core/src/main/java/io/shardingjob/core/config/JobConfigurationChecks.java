package io.shardingjob.core.config;

import static io.shardingjob.core.config.JobConfiguration.MAX_SHARDING_TOTAL_COUNT;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The checks of a {@link JobConfiguration}'s values, each naming the job and the setting at fault: what a valid value is,
 * and every message saying why one is not, written in one place rather than spread over the record's constructor and
 * its builder. The constructor calls them property by property, so that the first invalid property is the one
 * reported; the builder calls those it needs before the record exists, to read the values it was given as text.
 */
final class JobConfigurationChecks {

    static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

    private JobConfigurationChecks() {}

    static void checkName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new JobConfigurationException(
                    String.valueOf(name),
                    "name",
                    "must start with a letter or digit and contain only letters, digits, '.', '_' and '-'");
        }
    }

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

    static void checkTimeZone(String name, ZoneId timeZone) {
        if (timeZone == null) {
            throw new JobConfigurationException(name, "timeZone", "is required, e.g. 'UTC' or 'Asia/Shanghai'");
        }
    }

    /** A zone written as text, as the builder and the stored configuration give it. */
    static ZoneId parseTimeZone(String name, String timeZone) {
        try {
            return ZoneId.of(timeZone.trim());
        } catch (DateTimeException ex) {
            throw new JobConfigurationException(
                    name, "timeZone", "'" + timeZone + "' is not a zone id such as 'UTC' or 'Asia/Shanghai'");
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
     * The builder's item parameters, read against its count. The count and the contradiction with dynamic sharding are
     * checked before the parameters are read, whose errors would otherwise hide the count's and the contradiction's.
     */
    static ItemParameters parseItemParameters(
            String name, String itemParameters, int shardingTotalCount, boolean dynamicSharding) {
        checkShardingTotalCount(name, shardingTotalCount);
        checkNoItemParametersWithDynamicSharding(name, dynamicSharding, itemParameters);
        return ItemParameters.parse(name, itemParameters, shardingTotalCount);
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

    /** @return the strategy's name, trimmed */
    static String checkStrategy(String name, String strategy) {
        if (strategy == null || strategy.isBlank()) {
            throw new JobConfigurationException(name, "strategy", "must name a sharding strategy, e.g. 'average'");
        }
        return strategy.trim();
    }

    static void checkRetries(String name, int retries) {
        if (retries < 0) {
            throw new JobConfigurationException(name, "retries", "must be 0 or more, was " + retries);
        }
    }

    /** A pause or a limit: zero means none, and there is no negative time. */
    static void checkNotNegative(String name, String property, Duration duration) {
        if (duration.isNegative()) {
            throw new JobConfigurationException(name, property, "must not be negative, was " + duration);
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
            if (!NAME.matcher(trimmed).matches()) {
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
