package io.shardingjob.core.drills;

import static io.shardingjob.core.drills.DrillWorker.print;

import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.curator.framework.CuratorFramework;

/**
 * One instance of the checkpoint drill's job in a process of its own, using only the core's public API: a job on
 * demand (fired by an operator's trigger, so that the drill judges one fire) whose items each process {@value #UNITS}
 * units from {@link ShardingContext#checkpoint()} on, saving a checkpoint (the next unit) after every {@value #EVERY}.
 * It prints one flushed line per event on its standard output (a file, which survives {@code kill -9}):
 *
 * <ul>
 *   <li>{@code ready <ms>} once started;
 *   <li>{@code begin <item> <fire ms> <token> <source> <from> <ms>} as a run of an item begins, {@code from} the unit
 *       it resumes at (0 without a checkpoint);
 *   <li>{@code unit <item> <fire ms> <unit> <start ms> <end ms> <token> <instance>} per unit processed;
 *   <li>{@code saving <item> <fire ms> <next unit> <token>} before a save and {@code saved ...} once it is written: a
 *       kill between the two may leave either checkpoint as the last;
 *   <li>{@code done <item> <fire ms> <token> <ms>} once the run processed its last unit.
 * </ul>
 *
 * <p>Arguments: {@link DrillWorker}'s (connect string, namespace, instance id, session timeout ms, items, unit duration
 * ms); {@code drill.failover} ({@code true}) is the job's {@code failover}.
 */
public final class CheckpointWorker {

    static final int UNITS = 1_000;

    static final int EVERY = 50;

    private CheckpointWorker() {}

    public static void main(String[] args) throws Exception {
        String instanceId = args[2];
        int items = Integer.parseInt(args[4]);
        long unitMillis = Long.parseLong(args[5]);
        boolean failover = Boolean.parseBoolean(System.getProperty("drill.failover", "true"));
        CuratorFramework client = DrillWorker.connect(args[0], args[1], Integer.parseInt(args[3]));
        ExecutorService pool = Executors.newFixedThreadPool(items);
        JobConfiguration job = JobConfiguration.builder(DrillWorker.JOB)
                .shardingTotalCount(items)
                .failover(failover)
                .build();
        JobCoordinator coordinator = JobCoordinator.builder(client, job)
                .instanceId(instanceId)
                .job(context -> process(context, unitMillis), pool)
                .ledgerRetention(Duration.ofMinutes(5))
                .build();
        coordinator.start();
        print("ready " + System.currentTimeMillis());
        // The worker lives until the drill kills it; the coordinator's threads run its items meanwhile.
        new CountDownLatch(1).await();
    }

    /** The item's units from its last checkpoint on, a checkpoint saved after every {@link #EVERY}. */
    private static void process(ShardingContext context, long unitMillis) throws InterruptedException {
        String run = context.item() + " " + context.fireTime().toEpochMilli();
        int from = context.checkpoint().map(Integer::parseInt).orElse(0);
        print("begin " + run + " " + context.fencingToken() + " " + context.source() + " " + from + " "
                + System.currentTimeMillis());
        for (int unit = from; unit < UNITS; unit++) {
            long start = System.currentTimeMillis();
            Thread.sleep(unitMillis);
            print("unit " + run + " " + unit + " " + start + " " + System.currentTimeMillis() + " "
                    + context.fencingToken() + " " + context.instanceId());
            int next = unit + 1;
            if (next % EVERY == 0 && next < UNITS) {
                print("saving " + run + " " + next + " " + context.fencingToken());
                context.saveCheckpoint(String.valueOf(next));
                print("saved " + run + " " + next + " " + context.fencingToken());
            }
        }
        print("done " + run + " " + context.fencingToken() + " " + System.currentTimeMillis());
    }
}
