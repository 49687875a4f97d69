package io.shardingjob.sample;

import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.registry.RegistryCenter;
import io.shardingjob.core.registry.RegistryConfiguration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * Until the starter's {@code @ShardedJob} lands, this drives the core by hand: an embedded ZooKeeper, one job of four
 * regions, fired every five seconds, each item logging what it runs.
 */
@Component
class CoreOnlyDemo implements ApplicationRunner, DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(CoreOnlyDemo.class);

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

    private TestingServer zooKeeper;

    private RegistryCenter registry;

    private JobCoordinator settlement;

    @Override
    public void run(ApplicationArguments args) throws Exception {
        zooKeeper = new TestingServer(true);
        registry = new RegistryCenter(RegistryConfiguration.of(zooKeeper.getConnectString(), "sample"));
        registry.start();
        JobConfiguration job = JobConfiguration.builder("orderSettlement")
                .cron("0/5 * * * * *")
                .shardingTotalCount(4)
                .shardingItemParameters("0=Beijing,1=Shanghai,2=Guangzhou,3=Shenzhen")
                .build();
        settlement = JobCoordinator.builder(registry.client(), job).build();
        settlement.start();
        log.info(
                "Embedded ZooKeeper at {}; instance {} runs job {}",
                zooKeeper.getConnectString(),
                settlement.instanceId(),
                job.name());
        timer.scheduleAtFixedRate(this::fire, 1, 5, TimeUnit.SECONDS);
    }

    private void fire() {
        FireReport report = settlement.fire(context -> log.info(
                "Settling orders of {} (item {} of {}, epoch {}) on {}",
                context.itemParameter(),
                context.item(),
                context.shardingTotalCount(),
                context.epoch(),
                context.instanceId()));
        log.info("Fire done: items {} under epoch {}", report.items(), report.epoch());
    }

    @Override
    public void destroy() throws Exception {
        timer.shutdownNow();
        if (settlement != null) {
            settlement.close();
        }
        if (registry != null) {
            registry.close();
        }
        if (zooKeeper != null) {
            zooKeeper.close();
        }
    }
}
