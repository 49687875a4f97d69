package io.shardingjob.boot.jobs;

import io.shardingjob.core.JobCoordinator;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.availability.ApplicationAvailability;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationListener;

/**
 * Lets this instance take items only while the application is ready for traffic: while Boot's readiness is
 * {@link ReadinessState#REFUSING_TRAFFIC} every job stands by ({@link JobCoordinator#standBy()}), so its items move to
 * the other instances within a reshard, and on {@link ReadinessState#ACCEPTING_TRAFFIC} they come back. Boot publishes
 * that only once the application is ready, after the jobs started, so the jobs start standing by and claim nothing
 * before; it publishes the refusal when the application says so, and when a web application's context begins to
 * close, so the items move before the graceful stop begins.
 *
 * <p>The thread that publishes the readiness is not held: every job's leaving mark is written in the background, all
 * at once, and the readiness is logged once they all were.
 */
public final class ReadinessHandOff
        implements ApplicationListener<AvailabilityChangeEvent<?>>, SmartInitializingSingleton {

    private static final Logger log = LoggerFactory.getLogger(ReadinessHandOff.class);

    private final ApplicationAvailability availability;

    private final RunningJobs jobs;

    /**
     * Whether every job, those started later too, takes no items. Guarded by this, with which a job that becomes known
     * follows it in one step, so that no change passes it by.
     */
    private boolean standingBy;

    public ReadinessHandOff(ApplicationAvailability availability, RunningJobs jobs) {
        this.availability = availability;
        this.jobs = jobs;
    }

    /**
     * Follows the readiness as it stands before the jobs start (lazy initialization leaves this kind of bean out, so
     * it always runs before them), and has every job started from now on follow it.
     */
    @Override
    public void afterSingletonsInstantiated() {
        follow(availability.getReadinessState());
        jobs.eachJobFollows(this::apply);
    }

    @Override
    public void onApplicationEvent(AvailabilityChangeEvent<?> event) {
        if (event.getState() instanceof ReadinessState readiness) {
            follow(readiness);
        }
    }

    private void follow(ReadinessState readiness) {
        boolean standBy = readiness != ReadinessState.ACCEPTING_TRAFFIC;
        long changing = System.nanoTime();
        List<CompletableFuture<Void>> marks;
        synchronized (this) {
            if (standingBy == standBy) {
                return;
            }
            standingBy = standBy;
            marks = jobs.all().stream()
                    .map(job -> apply(job.coordinator()).toCompletableFuture())
                    .toList();
        }
        if (!marks.isEmpty()) {
            logOnceWritten(readiness, standBy, marks, changing);
        }
    }

    /** Has one job follow the readiness; guarded by this. */
    private synchronized CompletionStage<Void> apply(JobCoordinator coordinator) {
        return standingBy ? coordinator.standBy() : coordinator.resume();
    }

    private static void logOnceWritten(
            ReadinessState readiness, boolean standBy, List<CompletableFuture<Void>> marks, long changing) {
        CompletableFuture.allOf(marks.toArray(CompletableFuture[]::new)).whenComplete((written, failure) -> {
            long failed = marks.stream()
                    .filter(CompletableFuture::isCompletedExceptionally)
                    .count();
            long millis = Duration.ofNanos(System.nanoTime() - changing).toMillis();
            if (failed == 0) {
                log.info(
                        "Readiness {}: sharded jobs {} (jobs: {}, {} ms)",
                        readiness,
                        standBy
                                ? "stand by, marked leaving: their items move to the other instances"
                                : "take items again, their leaving marks withdrawn",
                        marks.size(),
                        millis);
            } else {
                log.warn(
                        "Readiness {}: the leaving marks of {} of {} sharded jobs could not be {} ({} ms; each is"
                                + " logged above)",
                        readiness,
                        failed,
                        marks.size(),
                        standBy ? "written" : "withdrawn",
                        millis);
            }
        });
    }
}
