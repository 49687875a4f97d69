package io.shardingjob.boot.fencing;

import io.shardingjob.core.execution.CurrentRun;
import io.shardingjob.core.execution.FencedOutException;
import io.shardingjob.core.execution.ShardingContext;
import java.util.Optional;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.Mono;

/**
 * {@link FencingTokenInterceptor}'s counterpart for {@code WebClient}: sends the fencing token of the run the calling
 * thread executes as {@link FencingHeaders}, and answers a fencing refusal with {@link FencedOutException}.
 *
 * <p>It reads {@link CurrentRun} when the request is subscribed to, so the token goes out only when that happens on the
 * job's thread, as with {@code .block()} in the job's method. A request subscribed to elsewhere (on another scheduler,
 * or returned for a caller to subscribe to later) carries no token: set it explicitly there with {@code
 * .headers(FencingHeaders.of(context))}, which this filter then leaves as it is.
 */
public final class FencingTokenExchangeFilter implements ExchangeFilterFunction {

    @Override
    public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
        Optional<ShardingContext> run = CurrentRun.context();
        if (run.isEmpty() || FencingHeaders.carriesAny(request.headers())) {
            return next.exchange(request);
        }
        ShardingContext current = run.get();
        ClientRequest fenced =
                ClientRequest.from(request).headers(FencingHeaders.of(current)).build();
        return next.exchange(fenced).flatMap(response -> {
            Long highest = FencingTokenInterceptor.refusal(
                    response.statusCode().value(), response.headers().asHttpHeaders());
            if (highest == null) {
                return Mono.just(response);
            }
            return response.releaseBody()
                    .then(Mono.error(new FencedOutException(current, request.method() + " " + request.url(), highest)));
        });
    }
}
