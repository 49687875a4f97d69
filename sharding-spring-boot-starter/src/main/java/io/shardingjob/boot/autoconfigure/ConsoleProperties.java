package io.shardingjob.boot.autoconfigure;

import java.time.Duration;

/** {@code sharding.console.*}: the operations console, web pages of the jobs served by the application itself. */
public class ConsoleProperties {

    /** Whether to serve the operations console (a servlet web application with Spring MVC only). */
    private boolean enabled;

    /** Where the console is served, relative to the servlet context path. */
    private String path = "/sharding-console";

    /** The role a signed-in user needs for the console's operations when Spring Security is on the class path. */
    private String role = "SHARDING_OPERATOR";

    /** How often an open page refreshes its live parts (the overview, a job's grid and fires). */
    private Duration refreshInterval = Duration.ofSeconds(1);

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getPath() {
        return path;
    }

    public void setPath(String path) {
        this.path = path;
    }

    public String getRole() {
        return role;
    }

    public void setRole(String role) {
        this.role = role;
    }

    public Duration getRefreshInterval() {
        return refreshInterval;
    }

    public void setRefreshInterval(Duration refreshInterval) {
        this.refreshInterval = refreshInterval;
    }
}
