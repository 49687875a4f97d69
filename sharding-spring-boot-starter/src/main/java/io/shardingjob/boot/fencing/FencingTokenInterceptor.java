package io.shardingjob.boot.fencing;

import io.shardingjob.core.execution.CurrentRun;
import io.shardingjob.core.execution.FencedOutException;
import io.shardingjob.core.execution.ShardingContext;
import java.io.IOException;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.HttpStatus;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Sends the fencing token of the run the calling thread executes ({@link CurrentRun}) with every call of a {@code
 * RestClient} or {@code RestTemplate}, as {@link FencingHeaders}; outside a run it sends nothing. When the service
 * refuses the call because a later owner of the item called with a higher token ({@link FencingTokenFilter}'s 409), it
 * throws {@link FencedOutException}, which ends the run without a retry.
 */
public final class FencingTokenInterceptor implements ClientHttpRequestInterceptor {

    @Override
    public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
            throws IOException {
        Optional<ShardingContext> run = CurrentRun.context();
        if (run.isEmpty() || !FencingHeaders.addTo(request.getHeaders(), run.get())) {
            return execution.execute(request, body);
        }
        ClientHttpResponse response = execution.execute(request, body);
        Long highest = refusal(response.getStatusCode().value(), response.getHeaders());
        if (highest != null) {
            response.close();
            throw new FencedOutException(run.get(), request.getMethod() + " " + request.getURI(), highest);
        }
        return response;
    }

    /** The highest token named by a fencing refusal, or null when the response is none. */
    static @Nullable Long refusal(int status, HttpHeaders headers) {
        String highest = headers.getFirst(FencingHeaders.FENCED_OUT);
        if (status != HttpStatus.CONFLICT.value() || highest == null) {
            return null;
        }
        try {
            return Long.valueOf(highest.trim());
        } catch (NumberFormatException ex) {
            return null;
        }
    }
}
