package io.shardingjob.boot.fencing;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.http.MediaType;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Admits a call from a sharded job's run only while no later owner of the run's item called: a request carrying
 * {@link FencingHeaders} has its token admitted by a {@link JdbcFenceStore} under the key {@code job/item}, and is
 * refused with 409 Conflict when a higher token was admitted before, so that a run taken over while its process was
 * paused (a zombie) cannot undo its successor's call. The refusal is an RFC 9457 problem of type
 * {@value #FENCED_OUT_TYPE} naming the job, the item, the refused token and the highest one, with the highest in
 * {@link FencingHeaders#FENCED_OUT}, which {@link FencingTokenInterceptor} turns into a {@code FencedOutException}.
 *
 * <p>A request without the headers passes, unless they are required (then 428 Precondition Required); a request with
 * only some of them, or with an item or token that is not a number, gets 400 Bad Request. The admission commits before
 * the request is handled: a zombie admitted just before its successor may still be handled after it, as with any
 * admission made before a write outside the store's database.
 */
public final class FencingTokenFilter extends OncePerRequestFilter {

    /** The RFC 9457 problem type of a refusal, a tag URI: it names the problem and is not meant to be fetched. */
    public static final String FENCED_OUT_TYPE = "tag:shardingjob.io,2026:fenced-out";

    private final FencedCallAdmission admission;

    /** @param required whether a request without the headers is refused rather than passed */
    public FencingTokenFilter(JdbcFenceStore store, boolean required) {
        this.admission = new FencedCallAdmission(store, required);
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        FencedCallAdmission.Refusal refusal = admission.check(
                request.getHeader(FencingHeaders.JOB),
                request.getHeader(FencingHeaders.ITEM),
                request.getHeader(FencingHeaders.TOKEN));
        if (refusal == null) {
            chain.doFilter(request, response);
            return;
        }
        response.setStatus(refusal.status());
        if (refusal.highestToken() != null) {
            response.setHeader(FencingHeaders.FENCED_OUT, refusal.highestToken().toString());
        }
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        response.setContentLength(refusal.body().length);
        response.getOutputStream().write(refusal.body());
    }
}
