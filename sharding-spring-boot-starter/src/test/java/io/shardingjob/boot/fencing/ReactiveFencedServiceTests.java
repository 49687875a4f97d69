package io.shardingjob.boot.fencing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/** A WebFlux service (its controller and filter chain, in process) admits calls as the servlet filter does, on H2. */
class ReactiveFencedServiceTests {

    private final Settlements settlements = new Settlements();
    private final JdbcFenceStore store =
            new JdbcFenceStore(JdbcClient.create(database()), "sharding_fence", true, Clock.systemUTC());

    private WebTestClient service(boolean required, String... urlPatterns) {
        return WebTestClient.bindToController(settlements)
                .webFilter(new ReactiveFencingTokenFilter(store, required, List.of(urlPatterns)))
                .build();
    }

    @Test
    void admitsAFirstTokenAndAHigherOneAndRefusesALowerOneWithAProblemNamingBoth() {
        WebTestClient client = service(false, "/*");
        call(client, "/settlements/east", "100").expectStatus().isOk();
        call(client, "/settlements/east", "150").expectStatus().isOk();

        call(client, "/settlements/east", "100")
                .expectStatus()
                .isEqualTo(409)
                .expectHeader()
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .expectHeader()
                .valueEquals(FencingHeaders.FENCED_OUT, "150")
                .expectBody()
                .jsonPath("$.type")
                .isEqualTo(FencingTokenFilter.FENCED_OUT_TYPE)
                .jsonPath("$.job")
                .isEqualTo("settlement")
                .jsonPath("$.item")
                .isEqualTo(2)
                .jsonPath("$.token")
                .isEqualTo(100)
                .jsonPath("$.highestToken")
                .isEqualTo(150);
        assertThat(settlements.tokens).containsExactly("100", "150");
    }

    @Test
    void passesACallWithoutTheHeadersUnlessTheyAreRequiredAndAnswersAMalformedOneWith400() {
        service(false, "/*")
                .post()
                .uri("/settlements/east")
                .exchange()
                .expectStatus()
                .isOk();
        service(true, "/*")
                .post()
                .uri("/settlements/east")
                .exchange()
                .expectStatus()
                .isEqualTo(428);
        call(service(false, "/*"), "/settlements/east", "soon")
                .expectStatus()
                .isBadRequest()
                .expectBody()
                .jsonPath("$.detail")
                .isEqualTo("Sharding-Fencing-Token must be a whole number, not 'soon'");
        assertThat(settlements.tokens).containsExactly("none");
    }

    @Test
    void checksOnlyTheRequestsOfItsUrlPatterns() {
        WebTestClient client = service(true, "/invoices/*", "*.json");
        call(client, "/settlements/east", "soon").expectStatus().isOk();
        client.post().uri("/invoices").exchange().expectStatus().isEqualTo(428);
        client.post().uri("/settlements/east.json").exchange().expectStatus().isEqualTo(428);
    }

    @Test
    void matchesPathsAsAServletContainerMatchesItsUrlPatterns() {
        assertThat(ReactiveFencingTokenFilter.matches("/*", "/anything/at/all")).isTrue();
        assertThat(ReactiveFencingTokenFilter.matches("/invoices/*", "/invoices"))
                .isTrue();
        assertThat(ReactiveFencingTokenFilter.matches("/invoices/*", "/invoices/7/lines"))
                .isTrue();
        assertThat(ReactiveFencingTokenFilter.matches("/invoices/*", "/invoicesx"))
                .isFalse();
        assertThat(ReactiveFencingTokenFilter.matches("/invoices", "/invoices/7"))
                .isFalse();
        assertThat(ReactiveFencingTokenFilter.matches("*.json", "/a/b.json")).isTrue();
        assertThat(ReactiveFencingTokenFilter.matches("*.json", "/a/json")).isFalse();
    }

    private static WebTestClient.ResponseSpec call(WebTestClient client, String path, String token) {
        return client.post()
                .uri(path)
                .header(FencingHeaders.JOB, "settlement")
                .header(FencingHeaders.ITEM, "2")
                .header(FencingHeaders.TOKEN, token)
                .exchange();
    }

    private static JdbcDataSource database() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:reactive-fenced-service-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        return h2;
    }

    /** The service's own endpoint: it keeps the token of every call it handles. */
    @RestController
    static class Settlements {

        final List<String> tokens = new CopyOnWriteArrayList<>();

        @PostMapping({"/settlements/{region}", "/invoices"})
        String settle(@RequestHeader(name = FencingHeaders.TOKEN, required = false) String token) {
            tokens.add(token == null ? "none" : token);
            return "settled";
        }
    }
}
