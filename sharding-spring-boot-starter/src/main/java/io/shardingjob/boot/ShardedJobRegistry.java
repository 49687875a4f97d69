package io.shardingjob.boot;

import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.config.JobConfigurationException;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.registry.RegistryUnavailableException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Jobs defined while the service runs, beside the {@code @ShardedJob} methods of its code. A job's code is a
 * <em>handler</em>: a lambda or a bean method registered on each instance under a name ({@link #registerHandler}); a
 * job's definition (its configuration and its handler's name) is stored in ZooKeeper ({@link #define}), so that every
 * instance of the service runs the job (each with the handler), and an instance that starts later finds it. Changes
 * of the cron, the items and their parameters are stored the same way and land between two fires on every instance;
 * a removal stops the job everywhere and deletes its state, its fire ledger included.
 *
 * <pre>{@code
 * // on every instance, at start-up: the code
 * registry.registerHandler("export", context -> exporter.export(context.itemParameter(), context.fireTime()));
 * // once, anywhere: the job
 * registry.define(JobConfiguration.builder("nightly-export").cron("0 0 2 * * *").shardingTotalCount(3)
 *         .shardingItemParameters("0=eu,1=us,2=apac").build(), "export");
 * registry.updateCron("nightly-export", "0 30 2 * * *");
 * registry.remove("nightly-export").join();
 * }</pre>
 *
 * Operations on ZooKeeper throw {@link RegistryUnavailableException} when it cannot be reached; a configuration that
 * cannot work throws {@link JobConfigurationException} naming the job and the setting, and stores nothing.
 */
public interface ShardedJobRegistry {

    /**
     * Makes code available on this instance under a name: every job defined with that handler runs here, those defined
     * already included.
     *
     * @throws IllegalArgumentException when another handler has that name here
     */
    void registerHandler(String handler, ItemExecutor code);

    /** The handler names registered on this instance. */
    Set<String> handlers();

    /**
     * Defines a job for every instance of the service: those that have its handler run it.
     *
     * @throws JobConfigurationException when the name is taken: by a job defined already, or by one declared in code;
     *     or, naming the job and {@code after} or {@code itemWise}, when the jobs it follows would make the graph of the
     *     namespace's jobs bad: an upstream no job of the namespace has, a cycle, another item count for an item-wise
     *     job. Nothing is stored then, and no other job changes
     */
    void define(JobConfiguration configuration, String handler);

    /** Registers {@code code} here under the job's name, and defines the job with it. */
    default void register(JobConfiguration configuration, ItemExecutor code) {
        registerHandler(configuration.name(), code);
        define(configuration, configuration.name());
    }

    /** The jobs defined at run time, by name, as this instance last saw them. */
    List<String> definedJobs();

    /**
     * Changes a job's cron: every instance fires it on the new schedule from its next fire on; a fire running now goes
     * on.
     *
     * @return the configuration stored now
     * @throws java.util.NoSuchElementException when there is no such job
     */
    JobConfiguration updateCron(String job, String cron);

    /**
     * Changes a job's item count and item parameters together (a parameter per item, {@code 0=eu,1=us}; empty for
     * none): the items are resharded once the fires running under the old count are over.
     *
     * @return the configuration stored now
     * @throws java.util.NoSuchElementException when there is no such job
     */
    JobConfiguration updateItems(String job, int shardingTotalCount, String itemParameters);

    /**
     * Removes a job defined at run time: every instance stops it, letting its running items finish within the grace
     * period; then its state in ZooKeeper is deleted.
     *
     * @return completes once the job's state is gone
     * @throws java.util.NoSuchElementException when no job of that name is defined at run time
     */
    CompletableFuture<Void> remove(String job);
}
