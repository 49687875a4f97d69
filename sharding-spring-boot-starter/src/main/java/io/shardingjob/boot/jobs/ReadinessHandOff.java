package io.shardingjob.boot.jobs;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationListener;

/**
 * Lets this instance take items only while the application is ready for traffic: while Boot's readiness is
 * {@link ReadinessState#REFUSING_TRAFFIC} every job stands by ({@link io.shardingjob.core.JobCoordinator#standBy()}),
 * so its items move to the other instances within a reshard, and on {@link ReadinessState#ACCEPTING_TRAFFIC} they come
 * back. Boot publishes that only once the application is ready, after the jobs started, so the jobs start standing by
 * and claim nothing before; it publishes the refusal when the application says so, and when a web application's
 * context begins to close, so the items move before the graceful stop begins.
 */
public final class ReadinessHandOff
        implements ApplicationListener<AvailabilityChangeEvent<?>>, SmartInitializingSingleton {

    private static final Logger log = LoggerFactory.getLogger(ReadinessHandOff.class);

    private final ApplicationAvailability availability;

    private final RunningJobs jobs;

    public ReadinessHandOff(ApplicationAvailability availability, RunningJobs jobs) {
        this.availability = availability;
        this.jobs = jobs;
    }

    /**
     * Follows the readiness as it stands before the jobs start (lazy initialization leaves this kind of bean out, so
     * it always runs before them).
     */
    @Override
    public void afterSingletonsInstantiated() {
        follow(availability.getReadinessState());
    }

    @Override
    public void onApplicationEvent(AvailabilityChangeEvent<?> event) {
        if (event.getState() instanceof ReadinessState readiness) {
            follow(readiness);
        }
    }

    private void follow(ReadinessState readiness) {
        boolean standBy = readiness != ReadinessState.ACCEPTING_TRAFFIC;
        if (jobs.standBy(standBy) && !jobs.all().isEmpty()) {
            log.info(
                    "Readiness {}: sharded jobs {}",
                    readiness,
                    standBy ? "stand by, their items move to the other instances" : "take items again");
        }
    }
}
