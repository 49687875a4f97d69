package io.shardingjob.core.benchmark;

import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.ExecutionSource;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * One instance of a job in a process of its own, so that a benchmark can {@code kill -9} it. It prints {@code ready}
 * once started, {@code start <item> <fire time ms> <start ms>} when an item starts and {@code end <item> <fire time ms>
 * <start ms> <end ms> <source>} when one completes. It fires when told {@code fire <fire time ms>} on its standard
 * input, or by itself on every whole second with {@code --every-second}.
 *
 * <p>Arguments: connect string, namespace, instance id, session timeout ms, items, item duration ms, then optionally
 * {@code --every-second}.
 */
public final class BenchmarkWorker {

    private BenchmarkWorker() {}

    public static void main(String[] args) throws Exception {
        String connectString = args[0];
        String namespace = args[1];
        String instanceId = args[2];
        int sessionTimeout = Integer.parseInt(args[3]);
        int items = Integer.parseInt(args[4]);
        long itemMillis = Long.parseLong(args[5]);
        boolean everySecond = args.length > 6 && args[6].equals("--every-second");
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .namespace(namespace)
                .sessionTimeoutMs(sessionTimeout)
                .connectionTimeoutMs(5_000)
                .retryPolicy(new ExponentialBackoffRetry(100, 10, 1_000))
                .build();
        client.start();
        client.blockUntilConnected(30, TimeUnit.SECONDS);
        JobConfiguration job = job(items, everySecond);
        JobCoordinator coordinator = JobCoordinator.builder(client, job)
                .instanceId(instanceId)
                .reconcileInterval(Duration.ofSeconds(1))
                .job(
                        context -> {
                            print("start " + context.item() + " " + System.currentTimeMillis());
                            Thread.sleep(itemMillis);
                        },
                        Executors.newFixedThreadPool(16))
                .listener(result -> {
                    if (result.succeeded()) {
                        print("end " + result.context().item() + " "
                                + result.fireTime().toEpochMilli() + " "
                                + result.start().toEpochMilli() + " "
                                + result.end().toEpochMilli() + " "
                                + result.source());
                    }
                })
                .build();
        coordinator.start();
        print("ready");
        if (everySecond) {
            ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(4);
            Instant first = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
            scheduler.scheduleAtFixedRate(
                    () -> {
                        // Rounded, not truncated: the executor may wake a little before the whole second.
                        Instant fireTime = Instant.ofEpochSecond(Math.round(System.currentTimeMillis() / 1000.0));
                        // A fire blocks until its items end; the next second must not wait for it.
                        scheduler.execute(() -> coordinator.fire(ExecutionSource.NORMAL, fireTime));
                    },
                    Duration.between(Instant.now(), first).toMillis(),
                    1_000,
                    TimeUnit.MILLISECONDS);
        }
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String command;
        while ((command = commands.readLine()) != null) {
            if (command.startsWith("fire ")) {
                Instant fireTime =
                        Instant.ofEpochMilli(Long.parseLong(command.substring(5).trim()));
                new Thread(() -> coordinator.fire(ExecutionSource.NORMAL, fireTime)).start();
            } else if (command.equals("stop")) {
                break;
            }
        }
        coordinator.close();
        client.close();
        System.exit(0);
    }

    static JobConfiguration job(int items, boolean everySecond) {
        return JobConfiguration.builder("failover")
                .cron("0 0 0 1 1 ?")
                .shardingTotalCount(items)
                .failover(true)
                .misfire(everySecond)
                .build();
    }

    private static synchronized void print(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
