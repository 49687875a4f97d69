package io.shardingjob.test;

import io.shardingjob.boot.ShardedJob;
import io.shardingjob.core.execution.ShardingContext;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A user's application as the kit's tests start it: one on-demand job of four regions, failover on. The example
 * project {@code examples/fenced-settlement} is a whole one, with its writes fenced and an instance paused mid-item.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
class SettlementApplication {

    @Bean
    SettlementJob settlementJob() {
        return new SettlementJob();
    }

    static final class SettlementJob {

        @ShardedJob(
                name = "settlement",
                shardingTotalCount = 4,
                failover = true,
                shardingItemParameters = "0=north,1=south,2=east,3=west")
        void settle(ShardingContext context) {
            // Settling takes no time here: the tests judge where and how often each region ran.
        }
    }
}
