package io.shardingjob.boot.observation;

import static org.assertj.core.api.Assertions.assertThat;

import brave.Tracing;
import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.B3Propagation;
import brave.propagation.Propagation;
import brave.propagation.TraceContext;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.brave.bridge.BraveBaggageManager;
import io.micrometer.tracing.brave.bridge.BraveCurrentTraceContext;
import io.micrometer.tracing.brave.bridge.BravePropagator;
import io.micrometer.tracing.brave.bridge.BraveTracer;
import io.micrometer.tracing.brave.bridge.W3CPropagation;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.shardingjob.core.execution.ExecutionSource;
import io.shardingjob.core.execution.FireReport;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The fires of one chain of jobs at one fire time, on whatever instances, are spans of one trace, with a real tracer
 * (Brave) under the observations, in either propagation format.
 */
class ChainTraceTests {

    private static final Instant FIRE_TIME = Instant.parse("2026-01-01T02:00:00Z");

    private final List<MutableSpan> spans = new CopyOnWriteArrayList<>();

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"W3C", "B3"})
    void theFiresOfAChainAtOneFireTimeShareOneTraceAndOtherFiresDoNot(String format) {
        Propagation.Factory propagation =
                format.equals("W3C") ? new W3CPropagation(new BraveBaggageManager(), List.of()) : B3Propagation.FACTORY;
        try (Tracing tracing = Tracing.newBuilder()
                .propagationFactory(propagation)
                .addSpanHandler(new SpanHandler() {
                    @Override
                    public boolean end(TraceContext context, MutableSpan span, Cause cause) {
                        spans.add(span);
                        return true;
                    }
                })
                .build()) {
            ShardingObservations observations = new ShardingObservations(registry(tracing), null, null);

            fire(observations, "settlement", "a", "settlement", FIRE_TIME);
            fire(observations, "settlement", "b", "settlement", FIRE_TIME);
            fire(observations, "export", "c", "settlement", FIRE_TIME);
            fire(observations, "settlement", "a", "settlement", FIRE_TIME.plusSeconds(60));
            fire(observations, "billing", "a", "billing", FIRE_TIME);
        }

        Map<String, List<String>> traces = spans.stream()
                .collect(Collectors.groupingBy(
                        MutableSpan::traceId,
                        Collectors.mapping(span -> span.name() + "@" + span.tag("instance"), Collectors.toList())));
        assertThat(traces).hasSize(3);
        assertThat(traces.values())
                .contains(List.of("settlement fire@a", "settlement fire@b", "export fire@c"))
                .contains(List.of("settlement fire@a"))
                .contains(List.of("billing fire@a"));
        assertThat(spans).allSatisfy(span -> assertThat(span.parentId()).isNotNull());
        assertThat(spans.get(0).traceId())
                .isEqualTo(ChainTrace.of("settlement", FIRE_TIME).traceId());
    }

    private static ObservationRegistry registry(Tracing tracing) {
        BraveTracer tracer = new BraveTracer(
                tracing.tracer(),
                new BraveCurrentTraceContext(tracing.currentTraceContext()),
                new BraveBaggageManager());
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig()
                .observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                        new PropagatingReceiverTracingObservationHandler<>(tracer, new BravePropagator(tracing)),
                        new DefaultTracingObservationHandler(tracer)));
        return registry;
    }

    private static void fire(
            ShardingObservations observations, String job, String instance, String chain, Instant fireTime) {
        ShardingContext item = new ShardingContext(
                job, "task", 1, 0, "", "", 1, instance, 1, fireTime, ExecutionSource.UPSTREAM, chain);
        observations.beforeFire(job, fireTime, ExecutionSource.UPSTREAM, List.of(item));
        observations.afterFire(
                job, fireTime, ExecutionSource.UPSTREAM, new FireReport(job, 1, List.of(), Map.of(), null));
    }
}
