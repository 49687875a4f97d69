package io.shardingjob.boot.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.boot.RecordingJob;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.TestZooKeeper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** Exposing the endpoint exposes its reads only: writes need management.endpoint.sharding.access=unrestricted. */
@SpringBootTest(
        classes = ShardingEndpointReadOnlyHttpTests.Service.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = "management.endpoints.web.exposure.include=sharding")
class ShardingEndpointReadOnlyHttpTests {

    private final HttpClient http = HttpClient.newHttpClient();

    @LocalServerPort
    private int port;

    @Autowired
    private ShardingOperations operations;

    @DynamicPropertySource
    static void zooKeeper(DynamicPropertyRegistry registry) {
        TestZooKeeper.register(registry, "read-only-test");
    }

    @Test
    void answersReadsButNotWritesUnlessWritesAreAllowed() throws Exception {
        assertThat(send(HttpRequest.newBuilder(uri("/actuator/sharding/orderSync"))
                                .GET())
                        .statusCode())
                .isEqualTo(200);
        HttpResponse<String> write = send(HttpRequest.newBuilder(uri("/actuator/sharding/orderSync"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"action\":\"disable\"}")));
        assertThat(write.statusCode()).as(write.body()).isEqualTo(405);
    }

    private URI uri(String path) {
        return URI.create("http://localhost:" + port + path);
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Service {

        @Bean
        RecordingJob recordingJob() {
            return new RecordingJob();
        }
    }
}
