package io.shardingjob.boot.console;

import static io.shardingjob.boot.console.ConsoleApplication.JOB;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.JobCoordinator;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.audit.AuditEvent;
import org.springframework.boot.actuate.audit.listener.AuditApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;

/**
 * The console's operations under Spring Security (with write access): only a signed-in user with the role may operate,
 * every operation is audited with the user's name, and a POST without the page's CSRF token is refused.
 */
class ShardingConsoleSecurityTests {

    private static final Duration PATIENCE = Duration.ofSeconds(15);

    private static final Pattern CSRF = Pattern.compile("hx-headers=\"\\{&quot;([^&]+)&quot;:&quot;([^&]+)&quot;\\}\"");

    private static ConsoleApplication application;

    @BeforeAll
    static void start() {
        application = ConsoleApplication.start(
                true,
                List.of(ConsoleApplication.Service.class, Secured.class),
                "management.endpoint.sharding.access=unrestricted");
    }

    @AfterAll
    static void stop() {
        application.close();
    }

    @BeforeEach
    void forgetEarlierAudits() {
        application.bean(AuditEvents.class).events.clear();
    }

    @Test
    void aUserWithTheRoleOperatesTheJobsAndIsAudited() throws Exception {
        String[] csrf = csrfHeader("operator");
        JobCoordinator job = application.operations().job(JOB).orElseThrow();
        HttpResponse<String> answer = application.post(
                "/sharding-console/jobs/orderSync/operations",
                Map.of("action", "disable-item", "item", "1"),
                application.fromAPage(signedIn("operator", csrf)));
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        assertThat(answer.body()).contains("data-status=\"ok\"");
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(job.disabledItems()).containsExactly(1));
        AuditEvent audit = nextAudit();
        assertThat(audit.getPrincipal()).isEqualTo("operator");
        assertThat(audit.getType()).isEqualTo("SHARDING_OPERATION");
        assertThat(audit.getData())
                .containsEntry("job", JOB)
                .containsEntry("target", "item/1")
                .containsEntry("action", "disable-item")
                .hasEntrySatisfying(
                        "result", result -> assertThat((String) result).startsWith("ok"));
        application.post(
                "/sharding-console/jobs/orderSync/operations",
                Map.of("action", "enable-item", "item", "1"),
                application.fromAPage(signedIn("operator", csrf)));
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(job.disabledItems()).isEmpty());
    }

    @Test
    void aUserWithoutTheRoleIsRefusedAndAudited() throws Exception {
        String[] csrf = csrfHeader("viewer");
        String page = application
                .get("/sharding-console/jobs/orderSync", signedIn("viewer"))
                .body();
        assertThat(page).contains("data-action=\"trigger\"");
        HttpResponse<String> answer = application.post(
                "/sharding-console/jobs/orderSync/operations",
                Map.of("action", "disable-job"),
                application.fromAPage(signedIn("viewer", csrf)));
        assertThat(answer.statusCode()).isEqualTo(403);
        assertThat(answer.body()).contains("data-status=\"refused\"").contains("SHARDING_OPERATOR");
        AuditEvent audit = nextAudit();
        assertThat(audit.getPrincipal()).isEqualTo("viewer");
        assertThat((String) audit.getData().get("result")).startsWith("refused");
        assertThat(application.jobDisabled()).isFalse();
    }

    @Test
    void aPostWithoutTheCsrfTokenIsRefused() {
        csrfHeader("operator");
        HttpResponse<String> answer = application.post(
                "/sharding-console/jobs/orderSync/operations",
                Map.of("action", "disable-job"),
                application.fromAPage(signedIn("operator")));
        assertThat(answer.statusCode()).isEqualTo(403);
        assertThat(application.jobDisabled()).isFalse();
    }

    /** The CSRF header a console page tells htmx to send, as name and value. */
    private static String[] csrfHeader(String user) {
        String page = application.get("/sharding-console", signedIn(user)).body();
        Matcher header = CSRF.matcher(page);
        assertThat(header.find()).as(page).isTrue();
        return new String[] {header.group(1), header.group(2)};
    }

    private static String[] signedIn(String user, String... more) {
        String credentials = Base64.getEncoder().encodeToString((user + ":secret").getBytes(StandardCharsets.UTF_8));
        String[] headers = new String[more.length + 2];
        headers[0] = "Authorization";
        headers[1] = "Basic " + credentials;
        System.arraycopy(more, 0, headers, 2, more.length);
        return headers;
    }

    private static AuditEvent nextAudit() throws InterruptedException {
        AuditEvent event = application.bean(AuditEvents.class).events.poll(10, TimeUnit.SECONDS);
        assertThat(event).as("an audit event").isNotNull();
        return event;
    }

    /** An application's own security: HTTP Basic for everything, CSRF as Spring Security's default. */
    @Configuration(proxyBeanMethods = false)
    @EnableWebSecurity
    static class Secured {

        @Bean
        SecurityFilterChain securityFilterChain(HttpSecurity http) {
            return http.authorizeHttpRequests(requests -> requests.anyRequest().authenticated())
                    .httpBasic(Customizer.withDefaults())
                    .build();
        }

        @Bean
        UserDetailsService users() {
            return new InMemoryUserDetailsManager(
                    User.withUsername("operator")
                            .password("{noop}secret")
                            .roles("SHARDING_OPERATOR")
                            .build(),
                    User.withUsername("viewer")
                            .password("{noop}secret")
                            .roles("VIEWER")
                            .build());
        }

        @Bean
        AuditEvents auditEvents() {
            return new AuditEvents();
        }
    }

    /** Keeps the audit events the application publishes. */
    static class AuditEvents implements ApplicationListener<AuditApplicationEvent> {

        final BlockingQueue<AuditEvent> events = new LinkedBlockingQueue<>();

        @Override
        public void onApplicationEvent(AuditApplicationEvent event) {
            events.add(event.getAuditEvent());
        }
    }
}
