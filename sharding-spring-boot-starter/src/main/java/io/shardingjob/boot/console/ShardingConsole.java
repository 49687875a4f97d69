package io.shardingjob.boot.console;

import io.shardingjob.boot.ShardingOperations;
import io.shardingjob.boot.operations.OperationAudit;
import io.shardingjob.boot.operations.OperatorActions;
import io.shardingjob.boot.operations.OperatorOutcome;
import io.shardingjob.core.JobCoordinator;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.jspecify.annotations.Nullable;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * The operations console: server-rendered pages of the jobs, served as Spring MVC functional routes under a path of
 * their own.
 *
 * <ul>
 *   <li>{@code GET {path}}: the overview; {@code GET {path}/overview}: its live table;
 *   <li>{@code GET {path}/graph}: the graph of jobs, which follows which;
 *   <li>{@code GET {path}/jobs/{job}}: one job; {@code GET {path}/jobs/{job}/live}: its live part; both take
 *       {@code ?fire=} (epoch milliseconds), the fire its chain shows;
 *   <li>{@code POST {path}/jobs/{job}/operations}: an operation ({@code action}, and {@code item}, {@code instance} or
 *       {@code jobParameter} as the action needs), answered with the {@code #result} element;
 *   <li>{@code GET {path}/assets/htmx.min.js}, {@code console.js}, {@code console.css}: served from the class path, so
 *       that the console depends neither on the application's static resources nor on its rules for {@code /webjars}.
 * </ul>
 *
 * Reads come from {@link ShardingOperations}, the registry's caches and the fire ledger; they need nothing but access to
 * the path, which the application's own security decides. Operations are guarded as {@link OperationHandler} says.
 */
public final class ShardingConsole {

    private static final MediaType HTML = new MediaType(MediaType.TEXT_HTML, StandardCharsets.UTF_8);

    private static final String HTMX = "META-INF/resources/webjars/htmx.org/";

    private static final String HTMX_VERSION = "META-INF/maven/org.webjars.npm/htmx.org/pom.properties";

    private final ShardingOperations operations;

    private final String path;

    private final Duration refreshInterval;

    private final ConsoleWriteAccess access;

    private final ConsoleSecurity security;

    private final Clock clock;

    private final OverviewPage overview;

    private final JobPage jobPage;

    private final GraphPage graphPage;

    private final OperationHandler operationHandler;

    private final Map<String, Asset> assets;

    /**
     * @param path where the console is served, such as {@code /sharding-console}
     * @param refreshInterval how often the live parts of a page refresh
     * @throws IllegalArgumentException when the path is not a path of its own
     * @throws IllegalStateException when htmx is missing from the class path
     */
    public ShardingConsole(
            ShardingOperations operations,
            String path,
            Duration refreshInterval,
            ConsoleWriteAccess access,
            ConsoleSecurity security,
            OperationAudit audit,
            Clock clock) {
        this.operations = operations;
        this.path = normalize(path);
        this.refreshInterval = refreshInterval;
        this.access = access;
        this.security = security;
        this.clock = clock;
        this.overview = new OverviewPage(operations);
        this.jobPage = new JobPage(operations);
        this.graphPage = new GraphPage(operations);
        // The console offers no action on a job's definition, so it needs no ShardedJobRegistry.
        this.operationHandler = new OperationHandler(new OperatorActions(operations, null, audit), access, security);
        this.assets = Map.of(
                "htmx.min.js",
                        new Asset(new ClassPathResource(HTMX + htmxVersion() + "/dist/htmx.min.js"), "text/javascript"),
                "console.js",
                        new Asset(new ClassPathResource("io/shardingjob/boot/console/console.js"), "text/javascript"),
                "console.css", new Asset(new ClassPathResource("io/shardingjob/boot/console/console.css"), "text/css"));
    }

    /**
     * @deprecated since 0.1.0, for the constructor that takes an {@link OperationAudit}, of which {@link ConsoleAudit}
     *     is one
     */
    @Deprecated(since = "0.1.0")
    public ShardingConsole(
            ShardingOperations operations,
            String path,
            Duration refreshInterval,
            ConsoleWriteAccess access,
            ConsoleSecurity security,
            ConsoleAudit audit,
            Clock clock) {
        this(operations, path, refreshInterval, access, security, (OperationAudit) audit, clock);
    }

    /** The path the console is served at, relative to the servlet context path. */
    public String path() {
        return path;
    }

    public RouterFunction<ServerResponse> routes() {
        return RouterFunctions.route()
                .GET(path, this::overview)
                .GET(path + "/", this::overview)
                .GET(path + "/overview", request -> html(overview.fragment(context(request))))
                .GET(path + "/graph", request -> html(graphPage.page(context(request))))
                .GET(
                        path + "/jobs/{job}",
                        request -> withJob(request, (context, job) -> jobPage.page(context, job, fire(request))))
                .GET(
                        path + "/jobs/{job}/live",
                        request -> withJob(request, (context, job) -> jobPage.fragment(context, job, fire(request))))
                .GET(path + "/assets/{name}", this::asset)
                .POST(path + "/jobs/{job}/operations", this::operate)
                .build();
    }

    private ServerResponse overview(ServerRequest request) {
        return html(overview.page(context(request)));
    }

    private ServerResponse withJob(ServerRequest request, JobRenderer renderer) {
        PageContext context = context(request);
        Optional<JobCoordinator> job = operations.job(request.pathVariable("job"));
        if (job.isEmpty()) {
            String missing = Layout.page(
                    context,
                    "No such job",
                    html -> html.raw("<h1>No such job</h1><p>No job named ")
                            .raw("<code>")
                            .text(request.pathVariable("job"))
                            .raw("</code> runs on this instance. <a")
                            .attr("href", context.base())
                            .raw(">All jobs</a></p>"));
            return ServerResponse.status(404).contentType(HTML).body(missing);
        }
        return html(renderer.render(context, job.get()));
    }

    /** The fire a job page's chain shows ({@code ?fire=} epoch milliseconds), null for the newest or a malformed one. */
    private static @Nullable Instant fire(ServerRequest request) {
        try {
            return request.param("fire")
                    .map(Long::parseLong)
                    .map(Instant::ofEpochMilli)
                    .orElse(null);
        } catch (NumberFormatException ex) {
            return null;
        }
    }

    private ServerResponse operate(ServerRequest request) {
        OperatorOutcome outcome = operationHandler.handle(request);
        return ServerResponse.status(outcome.httpStatus())
                .contentType(HTML)
                .cacheControl(CacheControl.noStore())
                .body(OperationHandler.render(outcome));
    }

    private ServerResponse asset(ServerRequest request) {
        Asset asset = assets.get(request.pathVariable("name"));
        if (asset == null) {
            return ServerResponse.notFound().build();
        }
        return ServerResponse.ok()
                .contentType(asset.type())
                .cacheControl(CacheControl.maxAge(Duration.ofHours(1)))
                .body(asset.resource());
    }

    private PageContext context(ServerRequest request) {
        HttpServletRequest servlet = request.servletRequest();
        boolean writable = access.writesAllowed();
        return new PageContext(
                servlet.getContextPath() + path,
                writable,
                writable ? security.operator(servlet).refusal() : null,
                security.csrfHeader(servlet),
                refreshInterval,
                operations.instanceId(),
                operations.isConnected(),
                clock.instant());
    }

    private static ServerResponse html(String body) {
        return ServerResponse.ok()
                .contentType(HTML)
                .cacheControl(CacheControl.noStore())
                .body(body);
    }

    /** Whether the console can be served at {@code path}: absolute, not the root, no pattern. */
    public static boolean isPathOfItsOwn(String path) {
        String trimmed = trimmed(path);
        return trimmed.startsWith("/") && trimmed.length() >= 2 && !trimmed.contains("{") && !trimmed.contains("*");
    }

    static String normalize(String path) {
        if (!isPathOfItsOwn(path)) {
            throw new IllegalArgumentException("sharding.console.path must be a path of its own, such as"
                    + " /sharding-console, not '" + path + "'");
        }
        return trimmed(path);
    }

    private static String trimmed(String path) {
        String trimmed = path.trim();
        while (trimmed.endsWith("/")) {
            trimmed = trimmed.substring(0, trimmed.length() - 1);
        }
        return trimmed;
    }

    /** The version of the htmx webjar on the class path, from its Maven properties. */
    private static String htmxVersion() {
        ClassPathResource properties = new ClassPathResource(HTMX_VERSION);
        try (InputStream in = properties.getInputStream()) {
            Properties read = new Properties();
            read.load(in);
            String version = read.getProperty("version");
            if (version != null) {
                return version;
            }
        } catch (IOException ex) {
            // Reported below.
        }
        throw new IllegalStateException("The sharding console needs htmx on the class path (org.webjars.npm:htmx.org, a"
                + " dependency of the starter); it is missing or has no version");
    }

    @FunctionalInterface
    private interface JobRenderer {
        String render(PageContext context, JobCoordinator job);
    }

    private record Asset(Resource resource, MediaType type) {

        Asset(Resource resource, String type) {
            this(resource, MediaType.parseMediaType(type + ";charset=UTF-8"));
        }
    }
}
