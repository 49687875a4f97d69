package io.shardingjob.boot.console;

import static org.awaitility.Awaitility.await;

import io.shardingjob.boot.ShardedJob;
import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.TestZooKeeper;
import io.shardingjob.core.execution.ShardingContext;
import java.io.IOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.DefaultResourceLoader;

/**
 * A web application with the console, on a real port and a real ZooKeeper, for one test class. Its job is named and
 * parameterised with markup, so that every page shows whether values are escaped.
 */
final class ConsoleApplication implements AutoCloseable {

    static final String JOB = "orderSync";

    static final String JOB_PARAMETER = "<script>alert('job')</script>";

    private static final Duration PATIENCE = Duration.ofSeconds(20);

    private final ConfigurableApplicationContext context;

    private final int port;

    private final HttpClient http =
            HttpClient.newBuilder().cookieHandler(new CookieManager()).build();

    private ConsoleApplication(ConfigurableApplicationContext context) {
        this.context = context;
        this.port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
    }

    /**
     * Starts the application with its sources and properties; without {@code withSpringSecurity} Spring Security is
     * hidden from its class loader, as in an application that does not have it.
     */
    static ConsoleApplication start(boolean withSpringSecurity, List<Class<?>> sources, String... properties) {
        List<String> all = new ArrayList<>(List.of(TestZooKeeper.properties("console-test")));
        all.addAll(List.of("server.port=0", "spring.main.banner-mode=off", "sharding.console.enabled=true"));
        all.addAll(List.of(properties));
        SpringApplicationBuilder builder = new SpringApplicationBuilder(sources.toArray(Class<?>[]::new))
                .web(WebApplicationType.SERVLET)
                .properties(all.toArray(String[]::new));
        if (!withSpringSecurity) {
            builder.resourceLoader(new DefaultResourceLoader(new FilteredClassLoader("org.springframework.security")));
        }
        ConsoleApplication application = new ConsoleApplication(builder.run());
        application.awaitFires();
        return application;
    }

    ShardingOperations operations() {
        return context.getBean(ShardingOperations.class);
    }

    /** Whether the test job is disabled, as its stored configuration says: what a refused operation must not change. */
    boolean jobDisabled() {
        return operations().job(JOB).orElseThrow().configuration().disabled();
    }

    <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    /** Waits until the job runs here and has fired a few times, so that every page has something to show. */
    private void awaitFires() {
        await().atMost(PATIENCE)
                .until(() -> operations().executions(JOB, 0, 20).executions().size() >= 8);
    }

    HttpResponse<String> get(String path, String... headers) {
        return send(HttpRequest.newBuilder(uri(path)).GET(), headers);
    }

    /** A form POST with the headers given as name, value, name, value... */
    HttpResponse<String> post(String path, Map<String, String> form, String... headers) {
        String body = form.entrySet().stream()
                .map(field -> URLEncoder.encode(field.getKey(), StandardCharsets.UTF_8) + "="
                        + URLEncoder.encode(field.getValue(), StandardCharsets.UTF_8))
                .collect(Collectors.joining("&"));
        String[] all = Stream.concat(Stream.of("Content-Type", "application/x-www-form-urlencoded"), Stream.of(headers))
                .toArray(String[]::new);
        return send(HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.ofString(body)), all);
    }

    /** A JSON POST, as an operator's script sends one to the {@code sharding} endpoint. */
    HttpResponse<String> postJson(String path, String json) {
        return send(
                HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.ofString(json)),
                "Content-Type",
                "application/json");
    }

    /** What an htmx request of a console page sends: HX-Request, and the page's own origin. */
    String[] fromAPage(String... more) {
        return Stream.concat(Stream.of("HX-Request", "true", "Origin", "http://localhost:" + port), Stream.of(more))
                .toArray(String[]::new);
    }

    private HttpResponse<String> send(HttpRequest.Builder request, String... headers) {
        if (headers.length > 0) {
            request.headers(headers);
        }
        try {
            return http.send(request.timeout(PATIENCE).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException ex) {
            throw new IllegalStateException(ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private URI uri(String path) {
        return URI.create("http://localhost:" + port + path);
    }

    @Override
    public void close() {
        context.close();
    }

    /** The application: the job, fired every second. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Service {

        @Bean
        MarkupJob markupJob() {
            return new MarkupJob();
        }
    }

    /** A job whose parameters are markup. */
    static class MarkupJob {

        @ShardedJob(
                name = JOB,
                cron = "* * * * * *",
                shardingTotalCount = 3,
                shardingItemParameters = "0=<b>Beijing</b>,1=Shanghai,2=Guangzhou",
                jobParameter = JOB_PARAMETER,
                failover = true)
        void run(ShardingContext context) {}
    }
}
