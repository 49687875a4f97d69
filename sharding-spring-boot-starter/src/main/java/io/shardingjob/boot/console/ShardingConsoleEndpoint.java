package io.shardingjob.boot.console;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.web.annotation.WebEndpoint;

/**
 * {@code /actuator/shardingconsole}: a link to the console, so that the Actuator root lists it among its
 * {@code _links} when the endpoint is exposed. It answers a small page that forwards the browser to the console.
 *
 * <p>The console is served by the application's server, so the link is right when Actuator shares it; with a separate
 * management port, open the console on the application's port.
 */
@WebEndpoint(id = "shardingconsole", defaultAccess = Access.READ_ONLY)
public class ShardingConsoleEndpoint {

    private final String consolePath;

    /** @param consolePath the console's path from the server's root: the servlet context path, then the console's */
    public ShardingConsoleEndpoint(String consolePath) {
        this.consolePath = consolePath;
    }

    @ReadOperation(produces = "text/html;charset=UTF-8")
    public String console() {
        String href = Html.escape(consolePath);
        return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Sharding console</title>"
                + "<meta http-equiv=\"refresh\" content=\"0; url=" + href + "\"></head><body>"
                + "<p>The sharding console is at <a href=\"" + href + "\">" + href + "</a>.</p></body></html>";
    }
}
