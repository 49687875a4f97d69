package io.shardingjob.boot.fencing;

import static io.shardingjob.boot.fencing.TestRuns.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardingjob.boot.autoconfigure.ShardingFencingAutoConfiguration;
import io.shardingjob.core.execution.CurrentRun;
import io.shardingjob.core.execution.FencedOutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.server.servlet.context.AnnotationConfigServletWebServerApplicationContext;
import org.springframework.boot.web.server.servlet.context.ServletWebServerApplicationContext;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A real servlet service (Tomcat on a free port, Spring MVC, H2) with the fencing filter on: it admits each call's token
 * under its job's item, refuses a lower one with a problem, and the jobs' client turns that refusal into the end of the
 * zombie's run.
 */
class FencedServiceTests {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final HttpClient http = HttpClient.newHttpClient();

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner(
                    AnnotationConfigServletWebServerApplicationContext::new)
            .withConfiguration(AutoConfigurations.of(
                    ShardingFencingAutoConfiguration.class,
                    org.springframework.boot.tomcat.autoconfigure.servlet.TomcatServletWebServerAutoConfiguration.class,
                    org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration.class,
                    org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration.class,
                    org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration.class,
                    org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration.class))
            .withBean(DataSource.class, FencedServiceTests::database)
            .withBean(Settlements.class)
            .withPropertyValues("server.port=0", "sharding.fencing.http.server.enabled=true");

    @Test
    void admitsAFirstTokenAndAHigherOneAndRefusesALowerOneWithAProblemNamingBoth() {
        runner.run(service((context, port) -> {
            assertThat(call(port, "settlement", "2", "100").statusCode()).isEqualTo(200);
            assertThat(call(port, "settlement", "2", "150").statusCode()).isEqualTo(200);
            assertThat(call(port, "settlement", "2", "150").statusCode())
                    .as("the same token again")
                    .isEqualTo(200);

            HttpResponse<String> refused = call(port, "settlement", "2", "100");

            assertThat(refused.statusCode()).isEqualTo(409);
            assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(refused.headers().firstValue(FencingHeaders.FENCED_OUT)).hasValue("150");
            JsonNode problem = JSON.readTree(refused.body());
            assertThat(problem.path("type").asString()).isEqualTo(FencingTokenFilter.FENCED_OUT_TYPE);
            assertThat(problem.path("status").asInt()).isEqualTo(409);
            assertThat(problem.path("job").asString()).isEqualTo("settlement");
            assertThat(problem.path("item").asInt()).isEqualTo(2);
            assertThat(problem.path("token").asLong()).isEqualTo(100);
            assertThat(problem.path("highestToken").asLong()).isEqualTo(150);
            assertThat(problem.path("detail").asString())
                    .contains("Job 'settlement': item 2's fencing token 100 is below 150");
            assertThat(context.getBean(Settlements.class).tokens)
                    .as("the calls the service handled")
                    .containsExactly("100", "150", "150");
        }));
    }

    @Test
    void keepsTheTokensOfEachItemApart() {
        runner.run(service((context, port) -> {
            assertThat(call(port, "settlement", "2", "150").statusCode()).isEqualTo(200);
            assertThat(call(port, "settlement", "3", "100").statusCode()).isEqualTo(200);
            assertThat(call(port, "invoices", "2", "100").statusCode()).isEqualTo(200);
        }));
    }

    @Test
    void passesACallWithoutTheHeadersUnlessTheyAreRequired() {
        runner.run(service((context, port) -> assertThat(
                        send(port, HttpRequest.newBuilder(settlements(port))).statusCode())
                .isEqualTo(200)));
        runner.withPropertyValues("sharding.fencing.http.server.required=true").run(service((context, port) -> {
            HttpResponse<String> refused = send(port, HttpRequest.newBuilder(settlements(port)));
            assertThat(refused.statusCode()).isEqualTo(428);
            assertThat(JSON.readTree(refused.body()).path("detail").asString())
                    .contains(FencingHeaders.JOB, FencingHeaders.ITEM, FencingHeaders.TOKEN);
            assertThat(context.getBean(Settlements.class).tokens).isEmpty();
        }));
    }

    @Test
    void answersAMalformedOrIncompleteCallWith400SayingWhatIsWrong() {
        runner.run(service((context, port) -> {
            HttpResponse<String> notANumber = call(port, "settlement", "2", "soon");
            assertThat(notANumber.statusCode()).isEqualTo(400);
            assertThat(JSON.readTree(notANumber.body()).path("detail").asString())
                    .isEqualTo("Sharding-Fencing-Token must be a whole number, not 'soon'");

            HttpResponse<String> badItem = call(port, "settlement", "-1", "100");
            assertThat(badItem.statusCode()).isEqualTo(400);
            assertThat(badItem.body()).contains("Sharding-Item must be an item number");

            HttpResponse<String> withoutItem = send(
                    port,
                    HttpRequest.newBuilder(settlements(port))
                            .header(FencingHeaders.JOB, "settlement")
                            .header(FencingHeaders.TOKEN, "100"));
            assertThat(withoutItem.statusCode()).isEqualTo(400);
            assertThat(withoutItem.body()).contains("this one lacks Sharding-Item");
            assertThat(context.getBean(Settlements.class).tokens).isEmpty();
        }));
    }

    @Test
    void checksOnlyTheRequestsOfItsUrlPatterns() {
        runner.withPropertyValues(
                        "sharding.fencing.http.server.url-patterns=/invoices/*",
                        "sharding.fencing.http.server.required=true")
                .run(service((context, port) -> assertThat(
                                call(port, "settlement", "2", "soon").statusCode())
                        .isEqualTo(200)));
    }

    @Test
    void aZombiesCallIsRefusedAfterItsSuccessorsWasAdmittedAndEndsTheZombiesRun() {
        runner.run(service((context, port) -> {
            RestClient client = context.getBean(RestClient.Builder.class)
                    .baseUrl("http://127.0.0.1:" + port)
                    .build();

            CurrentRun.execute(
                    run(2, 150),
                    successor ->
                            client.post().uri("/settlements/east").retrieve().toBodilessEntity());

            assertThatThrownBy(() -> CurrentRun.execute(
                            run(2, 100),
                            zombie -> client.post()
                                    .uri("/settlements/east")
                                    .retrieve()
                                    .toBodilessEntity()))
                    .isInstanceOf(FencedOutException.class)
                    .satisfies(thrown -> assertThat(((FencedOutException) thrown).highestToken())
                            .hasValue(150));
            assertThat(context.getBean(Settlements.class).tokens)
                    .as("only the successor's call was handled")
                    .containsExactly("150");
        }));
    }

    private static DataSource database() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:fenced-service-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        return h2;
    }

    private HttpResponse<String> call(int port, String job, String item, String token) throws Exception {
        return send(
                port,
                HttpRequest.newBuilder(settlements(port))
                        .headers(FencingHeaders.JOB, job, FencingHeaders.ITEM, item, FencingHeaders.TOKEN, token));
    }

    private HttpResponse<String> send(int port, HttpRequest.Builder request) throws Exception {
        return http.send(
                request.POST(HttpRequest.BodyPublishers.noBody())
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static URI settlements(int port) {
        return URI.create("http://127.0.0.1:" + port + "/settlements/east");
    }

    /** Runs {@code test} against the started service, on its port. */
    private static ContextConsumer<AssertableWebApplicationContext> service(ServiceTest test) {
        return context -> {
            assertThat(context).hasNotFailed();
            int port = context.getSourceApplicationContext(ServletWebServerApplicationContext.class)
                    .getWebServer()
                    .getPort();
            test.run(context, port);
        };
    }

    @FunctionalInterface
    private interface ServiceTest {
        void run(AssertableWebApplicationContext context, int port) throws Exception;
    }

    /** The service's own endpoint: it keeps the token of every call it handles. */
    @RestController
    static class Settlements {

        final List<String> tokens = new CopyOnWriteArrayList<>();

        @PostMapping("/settlements/{region}")
        Map<String, String> settle(
                @PathVariable String region,
                @RequestHeader(name = FencingHeaders.TOKEN, required = false) String token) {
            tokens.add(token == null ? "none" : token);
            return Map.of("region", region);
        }
    }
}
