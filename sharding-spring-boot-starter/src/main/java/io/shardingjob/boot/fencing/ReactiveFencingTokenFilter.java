package io.shardingjob.boot.fencing;

import java.util.List;
import java.util.Optional;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * {@link FencingTokenFilter}'s counterpart for a WebFlux service: the same admissions and answers. The store is JDBC,
 * so each admission runs on Reactor's bounded elastic scheduler, off the event loop.
 */
public final class ReactiveFencingTokenFilter implements WebFilter {

    private final FencedCallAdmission admission;
    private final List<String> urlPatterns;

    /**
     * @param required whether a request without the headers is refused rather than passed
     * @param urlPatterns the requests to check, as servlet URL patterns: {@code /orders}, {@code /orders/*}, {@code
     *     *.json}, {@code /*}
     */
    public ReactiveFencingTokenFilter(JdbcFenceStore store, boolean required, List<String> urlPatterns) {
        this.admission = new FencedCallAdmission(store, required);
        this.urlPatterns = List.copyOf(urlPatterns);
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        String path = exchange.getRequest().getPath().pathWithinApplication().value();
        if (urlPatterns.stream().noneMatch(pattern -> matches(pattern, path))) {
            return chain.filter(exchange);
        }
        HttpHeaders headers = exchange.getRequest().getHeaders();
        return Mono.fromCallable(() -> Optional.ofNullable(admission.check(
                        headers.getFirst(FencingHeaders.JOB),
                        headers.getFirst(FencingHeaders.ITEM),
                        headers.getFirst(FencingHeaders.TOKEN))))
                .subscribeOn(Schedulers.boundedElastic())
                .flatMap(refusal ->
                        refusal.isEmpty() ? chain.filter(exchange) : refuse(exchange.getResponse(), refusal.get()));
    }

    private static Mono<Void> refuse(ServerHttpResponse response, FencedCallAdmission.Refusal refusal) {
        response.setStatusCode(HttpStatus.valueOf(refusal.status()));
        if (refusal.highestToken() != null) {
            response.getHeaders()
                    .set(FencingHeaders.FENCED_OUT, refusal.highestToken().toString());
        }
        response.getHeaders().setContentType(MediaType.APPLICATION_PROBLEM_JSON);
        return response.writeWith(Mono.just(response.bufferFactory().wrap(refusal.body())));
    }

    /** Whether a servlet URL pattern takes the path, as a servlet container decides it. */
    static boolean matches(String pattern, String path) {
        if (pattern.equals("/*") || pattern.equals("/")) {
            return true;
        }
        if (pattern.startsWith("*.")) {
            return path.endsWith(pattern.substring(1));
        }
        if (pattern.endsWith("/*")) {
            String prefix = pattern.substring(0, pattern.length() - 2);
            return path.equals(prefix) || path.startsWith(prefix + "/");
        }
        return path.equals(pattern);
    }
}
