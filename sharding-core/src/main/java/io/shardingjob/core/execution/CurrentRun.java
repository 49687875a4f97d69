package io.shardingjob.core.execution;

import java.util.Optional;

/**
 * The run the calling thread is executing, while it is inside the job's code: what code called from a job (a client
 * interceptor, a repository) reads to fence its writes with the run's token, without the context being passed down.
 * Empty on any other thread, such as one the job's code handed work to: pass the context there yourself.
 */
public final class CurrentRun {

    private static final ThreadLocal<ShardingContext> RUN = new ThreadLocal<>();

    private CurrentRun() {}

    /** The context of the run the calling thread executes, if it is inside a job's code. */
    public static Optional<ShardingContext> context() {
        return Optional.ofNullable(RUN.get());
    }

    /**
     * Executes {@code job} as the run of {@code context} on the calling thread: {@link #context()} gives the context
     * until it returns, then whatever it gave before. The coordinator runs every item so; a test may, to call code
     * that reads the current run.
     */
    public static void execute(ShardingContext context, ItemExecutor job) throws Exception {
        ShardingContext outer = RUN.get();
        RUN.set(context);
        try {
            job.execute(context);
        } finally {
            if (outer == null) {
                RUN.remove();
            } else {
                RUN.set(outer);
            }
        }
    }
}
