package io.shardingjob.boot.fencing;

import static io.shardingjob.boot.fencing.TestRuns.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.Headers;
import io.shardingjob.core.execution.CurrentRun;
import io.shardingjob.core.execution.FencedOutException;
import io.shardingjob.core.execution.ShardingContext;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

/** The run's token goes out with the calls the job's code makes, and a service's refusal ends the run as fenced out. */
class FencingTokenClientTests {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private HeaderReceiver service;
    private RestClient restClient;
    private WebClient webClient;

    @BeforeEach
    void startService() throws Exception {
        service = new HeaderReceiver();
        restClient = RestClient.builder()
                .requestFactory(new JdkClientHttpRequestFactory())
                .requestInterceptor(new FencingTokenInterceptor())
                .build();
        webClient = WebClient.builder().filter(new FencingTokenExchangeFilter()).build();
    }

    @AfterEach
    void stopService() {
        service.close();
    }

    @Test
    void aRestClientCallInsideARunCarriesTheJobTheItemAndTheToken() throws Exception {
        CurrentRun.execute(run(2, 150), run -> post());

        assertCarries(received(), "settlement", "2", "150");
    }

    @Test
    void aRestClientCallOutsideARunCarriesNone() throws Exception {
        post();

        assertCarriesNone(received());
    }

    @Test
    void headersTheCallerSetAreKeptWholeAndNoneOfTheRunsAreAdded() throws Exception {
        ShardingContext other = run(3, 7);
        CurrentRun.execute(
                run(2, 150),
                run -> restClient
                        .post()
                        .uri(service.url())
                        .header(FencingHeaders.TOKEN, "7")
                        .retrieve()
                        .toBodilessEntity());
        CurrentRun.execute(
                run(2, 150),
                run -> restClient
                        .post()
                        .uri(service.url())
                        .headers(FencingHeaders.of(other))
                        .retrieve()
                        .toBodilessEntity());

        Headers callersOwn = received();
        assertThat(callersOwn.get(FencingHeaders.TOKEN)).containsExactly("7");
        assertThat(callersOwn.containsKey(FencingHeaders.JOB)).isFalse();
        assertThat(callersOwn.containsKey(FencingHeaders.ITEM)).isFalse();
        assertCarries(received(), "settlement", "3", "7");
    }

    @Test
    void aRefusedCallEndsTheRunWithFencedOutNamingTheHigherToken() throws Exception {
        service.refuseWithHighest(150);

        assertThatThrownBy(() -> CurrentRun.execute(run(2, 100), run -> post()))
                .isInstanceOf(FencedOutException.class)
                .hasMessageContaining("Job 'settlement': item 2's write to POST " + service.url())
                .hasMessageContaining("fencing token 100 is below 150")
                .satisfies(thrown ->
                        assertThat(((FencedOutException) thrown).highestToken()).hasValue(150));
    }

    @Test
    void aWebClientCallSubscribedToOnTheJobsThreadCarriesTheTokenAndOneOutsideARunNone() throws Exception {
        CurrentRun.execute(run(2, 150), run -> webPost());
        webPost();

        assertCarries(received(), "settlement", "2", "150");
        assertCarriesNone(received());
    }

    @Test
    void aWebClientCallMadeOnAnotherThreadCarriesTheTokenTheJobPassedExplicitly() throws Exception {
        // A thread of its own, not the common pool: the JDK's HTTP client may deliver the answer there, and a call
        // blocking the pool's only worker (on two cores) would wait for itself.
        ExecutorService anotherThread = Executors.newSingleThreadExecutor();
        try {
            CurrentRun.execute(
                    run(2, 150),
                    run -> CompletableFuture.runAsync(
                                    () -> webClient
                                            .post()
                                            .uri(service.url())
                                            .headers(FencingHeaders.of(run))
                                            .retrieve()
                                            .toBodilessEntity()
                                            .block(WAIT),
                                    anotherThread)
                            .get());
        } finally {
            anotherThread.shutdownNow();
        }

        assertCarries(received(), "settlement", "2", "150");
    }

    @Test
    void aRefusedWebClientCallEndsTheRunWithFencedOut() {
        service.refuseWithHighest(150);

        assertThatThrownBy(() -> CurrentRun.execute(run(2, 100), run -> webPost()))
                .isInstanceOf(FencedOutException.class)
                .hasMessageContaining("fencing token 100 is below 150");
    }

    private Headers received() throws InterruptedException {
        Headers headers = service.next(WAIT);
        assertThat(headers).as("a request within %s", WAIT).isNotNull();
        return headers;
    }

    private void post() {
        restClient.post().uri(service.url()).retrieve().toBodilessEntity();
    }

    private void webPost() {
        webClient.post().uri(service.url()).retrieve().toBodilessEntity().block(WAIT);
    }

    private static void assertCarries(Headers headers, String job, String item, String token) {
        assertThat(headers.get(FencingHeaders.JOB)).containsExactly(job);
        assertThat(headers.get(FencingHeaders.ITEM)).containsExactly(item);
        assertThat(headers.get(FencingHeaders.TOKEN)).containsExactly(token);
    }

    private static void assertCarriesNone(Headers headers) {
        // Headers compares names as HTTP does, regardless of case.
        assertThat(headers.containsKey(FencingHeaders.JOB)).isFalse();
        assertThat(headers.containsKey(FencingHeaders.ITEM)).isFalse();
        assertThat(headers.containsKey(FencingHeaders.TOKEN)).isFalse();
    }
}
