package io.shardingjob.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test class whose tests each get a {@link ShardingCluster} parameter: a ZooKeeper server of their own, in this
 * process, on which they start instances of their application, fire its jobs, cut, freeze or expire an instance, and
 * judge each fire from the ledger and the instances' executions. The instances tell time by one clock the test moves
 * ({@link ShardingCluster#clock()}), so that a job's schedule fires when the test says. Everything a test started is
 * closed after it.
 *
 * <pre>{@code
 * @ShardingTest
 * class SettlementJobTests {
 *     @Test
 *     void everyRegionIsSettledOnceAcrossTwoInstances(ShardingCluster cluster) {
 *         cluster.start("app-1", SettlementApplication.class);
 *         cluster.start("app-2", SettlementApplication.class);
 *         cluster.awaitSettled("settlement");
 *
 *         cluster.fireAndAwait("settlement").assertEveryItemRanOnce();
 *     }
 * }
 * }</pre>
 */
@Documented
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(ShardingClusterExtension.class)
public @interface ShardingTest {

    /**
     * How many ZooKeeper servers each test's cluster has: 1, a single server, by default; 3 or 5 for an ensemble whose
     * servers a test stops and restarts ({@link ShardingCluster#zooKeeper(int)}).
     */
    int ensemble() default 1;
}
