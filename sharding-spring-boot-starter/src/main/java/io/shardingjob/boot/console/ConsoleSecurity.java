package io.shardingjob.boot.console;

import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import org.jspecify.annotations.Nullable;

/**
 * Who asks for an operation and whether they may, and what a page must send back so that the application's CSRF
 * protection lets its operations through. Without Spring Security anyone who reaches the console may operate it (once
 * {@link ConsoleWriteAccess} allows operations at all); with it, {@link #springSecurity(String)} asks for a signed-in
 * user with a role.
 */
public interface ConsoleSecurity {

    /** The user behind a request and whether they may operate the jobs. */
    Operator operator(HttpServletRequest request);

    /** The header a page's requests must carry for CSRF protection, {@code null} when none is needed. */
    @Nullable
    CsrfHeader csrfHeader(HttpServletRequest request);

    /**
     * The user behind a request.
     *
     * @param name the user's name, for the audit trail; {@code anonymous} when nobody signed in
     * @param refusal why they may not operate the jobs, {@code null} when they may
     */
    record Operator(String name, @Nullable String refusal) {

        public boolean allowed() {
            return refusal == null;
        }
    }

    /** A header that every request of a page sends: the CSRF token, under the name the application checks. */
    record CsrfHeader(String name, String value) {}

    /** Every user may operate: the servlet container's principal, if any, names them. */
    static ConsoleSecurity none() {
        return new ConsoleSecurity() {

            @Override
            public Operator operator(HttpServletRequest request) {
                Principal principal = request.getUserPrincipal();
                return new Operator(principal == null ? "anonymous" : principal.getName(), null);
            }

            @Override
            public @Nullable CsrfHeader csrfHeader(HttpServletRequest request) {
                return null;
            }
        };
    }

    /**
     * A signed-in user with the role may operate (an authority {@code ROLE_} + role, or the role itself when it
     * already starts so); the page sends Spring Security's CSRF token as its header.
     */
    static ConsoleSecurity springSecurity(String role) {
        return new SpringSecurityConsoleSecurity(role);
    }
}
