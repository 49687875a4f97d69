package io.shardingjob.boot.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A service with a ZooKeeper digest, its console and every endpoint that could show it, values shown: no page, no
 * endpoint and no line of its log holds the digest's password.
 */
@ExtendWith(OutputCaptureExtension.class)
class SecretsOutOfSightTests {

    private static final String SECRET = "never-shown-digest-secret";

    @Test
    void noPageNoEndpointAndNoLogLineShowsTheDigest(CapturedOutput output) {
        try (ConsoleApplication application = ConsoleApplication.start(
                false,
                List.of(ConsoleApplication.Service.class),
                "sharding.zookeeper.namespace=secrets-test",
                "sharding.zookeeper.digest=ops:" + SECRET,
                "management.endpoints.web.exposure.include=sharding,health,env,configprops",
                "management.endpoint.env.show-values=always",
                "management.endpoint.configprops.show-values=always",
                "management.endpoint.health.show-details=always")) {
            for (String path : List.of(
                    "/actuator/sharding",
                    "/actuator/sharding/" + ConsoleApplication.JOB,
                    "/actuator/health",
                    "/actuator/env",
                    "/actuator/configprops",
                    "/sharding-console",
                    "/sharding-console/overview",
                    "/sharding-console/jobs/" + ConsoleApplication.JOB,
                    "/sharding-console/jobs/" + ConsoleApplication.JOB + "/live")) {
                HttpResponse<String> page = application.get(path);

                assertThat(page.statusCode()).as(path).isEqualTo(200);
                assertThat(page.body()).as(path).doesNotContain(SECRET);
            }
            // The digest is there, hidden: the check above looked where it would show.
            assertThat(application
                            .get("/actuator/env/sharding.zookeeper.digest")
                            .body())
                    .contains("******");
        }
        assertThat(output.getAll()).contains("orderSync").doesNotContain(SECRET);
    }
}
