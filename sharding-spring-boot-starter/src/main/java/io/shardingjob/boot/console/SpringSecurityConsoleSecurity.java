package io.shardingjob.boot.console;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import org.springframework.security.authentication.AuthenticationTrustResolver;
import org.springframework.security.authentication.AuthenticationTrustResolverImpl;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.csrf.CsrfToken;

/**
 * The console's security under Spring Security: operations need an authenticated (not anonymous) user with the
 * role. The CSRF token is the one Spring Security's filter put in the request; sending it as
 * a header of every htmx request lets a page's operations pass that filter, which refuses a POST without it.
 */
final class SpringSecurityConsoleSecurity implements ConsoleSecurity {

    private static final String ROLE_PREFIX = "ROLE_";

    private final AuthenticationTrustResolver trust = new AuthenticationTrustResolverImpl();

    private final String role;

    private final String authority;

    SpringSecurityConsoleSecurity(String role) {
        this.role = role;
        this.authority = role.startsWith(ROLE_PREFIX) ? role : ROLE_PREFIX + role;
    }

    @Override
    public Operator operator(HttpServletRequest request) {
        Authentication authentication = SecurityContextHolder.getContext().getAuthentication();
        if (authentication == null || !trust.isAuthenticated(authentication)) {
            return new Operator(
                    authentication == null ? "anonymous" : authentication.getName(), "sign in to operate the jobs");
        }
        boolean hasRole = authentication.getAuthorities().stream()
                .map(GrantedAuthority::getAuthority)
                .anyMatch(authority::equals);
        return new Operator(authentication.getName(), hasRole ? null : "operating the jobs needs the role " + role);
    }

    @Override
    public @Nullable CsrfHeader csrfHeader(HttpServletRequest request) {
        if (request.getAttribute(CsrfToken.class.getName()) instanceof CsrfToken token) {
            return new CsrfHeader(token.getHeaderName(), token.getToken());
        }
        return null;
    }
}
