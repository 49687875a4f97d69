package io.shardingjob.core.execution;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The runs this process executes now: the one the calling thread is inside of ({@link #context()}), for code a job
 * calls (a client interceptor, a repository) to fence its writes with the run's token without the context being passed
 * down; and the checkpoints of each, which {@link ShardingContext#checkpoint()} and {@link
 * ShardingContext#saveCheckpoint} reach from any thread while the run lasts.
 */
public final class CurrentRun {

    /**
     * Where a run's checkpoints are kept: the coordinator keeps them in the item's claim in the fire ledger, so that a
     * run that continues a cut one resumes from them; {@link #execute(ShardingContext, ItemExecutor)} keeps them in
     * memory for the one execution, as a test may want.
     */
    public interface Checkpoints {

        /** The last checkpoint saved for the run's item of its fire: by this run, or by the run it continues. */
        Optional<String> last();

        /**
         * Saves a checkpoint for the run's item of its fire, replacing the last one.
         *
         * @throws FencedOutException when the run was taken over: its process was paused or cut off past its session
         */
        void save(String checkpoint);
    }

    private static final ThreadLocal<ShardingContext> ON_THIS_THREAD = new ThreadLocal<>();

    /** The checkpoints of every run executing now, by its context: a retry has its first run's very context. */
    private static final Map<ShardingContext, Checkpoints> RUNNING = new ConcurrentHashMap<>();

    private CurrentRun() {}

    /** The context of the run the calling thread executes, if it is inside a job's code. */
    public static Optional<ShardingContext> context() {
        return Optional.ofNullable(ON_THIS_THREAD.get());
    }

    /**
     * Executes {@code job} as the run of {@code context} on the calling thread, with checkpoints kept in memory for
     * this execution: what a test of a job's code may use.
     */
    public static void execute(ShardingContext context, ItemExecutor job) throws Exception {
        execute(context, new InMemory(), job);
    }

    /**
     * Executes {@code job} as the run of {@code context} on the calling thread, its checkpoints kept by {@code
     * checkpoints}: {@link #context()} gives the context until it returns, then whatever it gave before. The
     * coordinator runs every item so.
     */
    public static void execute(ShardingContext context, Checkpoints checkpoints, ItemExecutor job) throws Exception {
        ShardingContext outer = ON_THIS_THREAD.get();
        @Nullable Checkpoints outerCheckpoints = RUNNING.put(context, checkpoints);
        ON_THIS_THREAD.set(context);
        try {
            job.execute(context);
        } finally {
            if (outerCheckpoints == null) {
                RUNNING.remove(context);
            } else {
                RUNNING.put(context, outerCheckpoints);
            }
            if (outer == null) {
                ON_THIS_THREAD.remove();
            } else {
                ON_THIS_THREAD.set(outer);
            }
        }
    }

    static Checkpoints checkpointsOf(ShardingContext context) {
        Checkpoints checkpoints = RUNNING.get(context);
        if (checkpoints == null) {
            throw new IllegalStateException("Job '" + context.jobName() + "': item " + context.item()
                    + " of the fire at " + context.fireTime() + " is not running in this process; its checkpoints are"
                    + " read and saved only while its run lasts");
        }
        return checkpoints;
    }

    private static final class InMemory implements Checkpoints {

        private volatile @Nullable String last;

        @Override
        public Optional<String> last() {
            return Optional.ofNullable(last);
        }

        @Override
        public void save(String checkpoint) {
            last = checkpoint;
        }
    }
}
