package io.shardingjob.core.drills;

import io.shardingjob.core.registry.ClockSkew;
import io.shardingjob.core.registry.RegistryCenter;
import io.shardingjob.core.registry.RegistryConfiguration;
import java.util.Optional;

/**
 * A process that connects to ZooKeeper with the core's public API, waits for its first clock measurement and prints it
 * as one line, {@code skew <skew ms> <uncertainty ms> <exceeded>}, then exits: run under libfaketime by
 * {@link ClockSkewDrillTest}, so that its wall clock is off while ZooKeeper's is not.
 *
 * <p>Arguments: connect string, namespace.
 */
public final class ClockSkewWorker {

    private ClockSkewWorker() {}

    public static void main(String[] args) throws InterruptedException {
        try (RegistryCenter registry = new RegistryCenter(RegistryConfiguration.of(args[0], args[1]))) {
            registry.start();
            long deadline = System.nanoTime() + 30_000_000_000L;
            Optional<ClockSkew> skew = registry.clockSkew();
            while (skew.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
                skew = registry.clockSkew();
            }
            ClockSkew measured = skew.orElseThrow(() -> new IllegalStateException("No clock measurement in 30 s"));
            System.out.println("skew " + measured.skew().toMillis() + " "
                    + measured.uncertainty().toMillis() + " " + measured.exceeded());
            System.out.flush();
        }
    }
}
