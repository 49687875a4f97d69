package io.shardingjob.test;

import io.shardingjob.boot.ShardedJob;
import io.shardingjob.boot.fencing.FencedJdbc;
import io.shardingjob.core.execution.ShardingContext;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * A user's application as the kit's tests start it: one on-demand job of four regions, failover on, each settling its
 * region through {@link FencedJdbc} when the application has a database. An instance whose id is in {@link #PAUSED}
 * holds its runs inside the job, ignoring interrupts as a paused process would, until the test lets them go on.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
class SettlementApplication {

    /** Instances whose runs wait inside the job until {@link #resume} is counted down. */
    static final Set<String> PAUSED = ConcurrentHashMap.newKeySet();

    static volatile CountDownLatch resume = new CountDownLatch(1);

    /** Counted down as a paused instance's run is inside the job. */
    static volatile CountDownLatch inside = new CountDownLatch(1);

    /** Settles in a database only when the test gives the instance one: H2 on the class path makes Boot add one. */
    @Bean
    SettlementJob settlementJob(ObjectProvider<FencedJdbc> fenced, Environment environment) {
        return new SettlementJob(
                environment.containsProperty("spring.datasource.url") ? fenced.getIfAvailable() : null);
    }

    static final class SettlementJob {

        private final @Nullable FencedJdbc fenced;

        SettlementJob(@Nullable FencedJdbc fenced) {
            this.fenced = fenced;
        }

        @ShardedJob(
                name = "settlement",
                shardingTotalCount = 4,
                failover = true,
                shardingItemParameters = "0=north,1=south,2=east,3=west")
        void settle(ShardingContext context) {
            if (PAUSED.contains(context.instanceId())) {
                inside.countDown();
                awaitUninterruptibly(resume);
            }
            if (fenced != null) {
                fenced.update(
                        context,
                        "settlement",
                        "settled_by = :instance",
                        "region = :region",
                        Map.of("instance", context.instanceId(), "region", context.itemParameter()));
            }
        }

        private static void awaitUninterruptibly(CountDownLatch latch) {
            boolean interrupted = false;
            while (true) {
                try {
                    if (latch.await(60, TimeUnit.SECONDS)) {
                        break;
                    }
                } catch (InterruptedException ex) {
                    // A paused process hears nothing: the interrupt its lost connection sent is ignored.
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.interrupted();
            }
        }
    }
}
