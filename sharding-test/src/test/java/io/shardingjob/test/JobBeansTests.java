package io.shardingjob.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.boot.ShardedJob;
import io.shardingjob.core.execution.ShardingContext;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.stereotype.Component;

/**
 * Instances made of job beans alone, with no {@code @SpringBootApplication}: the kit brings Spring Boot's
 * auto-configuration, and with it the starter's.
 */
@ShardingTest
class JobBeansTests {

    /** A component with a job, as a user's application would scan it. */
    @Component
    static class InvoiceJobs {

        @ShardedJob(name = "invoices", shardingTotalCount = 3)
        void send(ShardingContext context) {}
    }

    /** A configuration that declares the job's bean. */
    @Configuration(proxyBeanMethods = false)
    static class InvoiceConfiguration {

        @Bean
        InvoiceJobs invoiceJobs() {
            return new InvoiceJobs();
        }
    }

    @Test
    void theJobOfAPlainComponentRunsOnTwoInstancesWithoutAnApplicationClass(ShardingCluster cluster) {
        cluster.start("app-1", InvoiceJobs.class);
        cluster.start("app-2", InvoiceJobs.class);
        cluster.awaitSettled("invoices");

        FireRecord fire = cluster.fireAndAwait("invoices");

        fire.assertEveryItemRanOnce().assertNoItemRanOnTwoInstancesAtOnce();
        assertThat(fire.runs()).extracting(ExecutionRecord::instance).containsOnly("app-1", "app-2");
    }

    @Test
    void theJobOfABeanAPlainConfigurationDeclaresRunsWithoutAnApplicationClass(ShardingCluster cluster) {
        cluster.start("app-1", InvoiceConfiguration.class);
        cluster.awaitSettled("invoices");

        cluster.fireAndAwait("invoices").assertEveryItemRanOnce();
    }

    @Test
    void anApplicationThatBringsItsOwnAutoConfigurationGetsNoneAdded() {
        assertThat(ShardingInstance.withAutoConfiguration(List.of(SettlementApplication.class)))
                .containsExactly(SettlementApplication.class);
        assertThat(ShardingInstance.withAutoConfiguration(List.of(InvoiceJobs.class)))
                .containsExactly(InvoiceJobs.class, ShardingInstance.JobBeansApplication.class);
    }
}
