package io.shardingjob.boot.autoconfigure;

import io.shardingjob.boot.fencing.FencedJdbc;
import io.shardingjob.boot.fencing.JdbcFenceStore;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code sharding.fencing.*}: the fenced writes to the application's {@code DataSource} ({@code FencedJdbc} and
 * {@code JdbcFenceStore} beans, present with Spring's JDBC support and one {@code DataSource}), and the fencing token
 * on calls to other services ({@code http}).
 */
public class FencingProperties {

    /** The column, in the tables FencedJdbc updates, that holds the highest fencing token written to each row. */
    private String fenceColumn = FencedJdbc.DEFAULT_FENCE_COLUMN;

    /** The table in which JdbcFenceStore keeps the highest fencing token admitted per key. */
    private String table = JdbcFenceStore.DEFAULT_TABLE;

    /** Whether to create the fence table on first use when missing; turn off when Flyway or Liquibase creates it. */
    private boolean initializeSchema = true;

    /** Fenced calls to other services over HTTP. */
    private final Http http = new Http();

    public String getFenceColumn() {
        return fenceColumn;
    }

    public void setFenceColumn(String fenceColumn) {
        this.fenceColumn = fenceColumn;
    }

    public String getTable() {
        return table;
    }

    public void setTable(String table) {
        this.table = table;
    }

    public boolean isInitializeSchema() {
        return initializeSchema;
    }

    public void setInitializeSchema(boolean initializeSchema) {
        this.initializeSchema = initializeSchema;
    }

    public Http getHttp() {
        return http;
    }

    /** {@code sharding.fencing.http.*}: the token sent with calls (client) and admitted by this service (server). */
    public static class Http {

        /** The token sent with the calls the jobs make. */
        private final Client client = new Client();

        /** The tokens of the calls this service takes. */
        private final Server server = new Server();

        public Client getClient() {
            return client;
        }

        public Server getServer() {
            return server;
        }
    }

    /** {@code sharding.fencing.http.client.*}. */
    public static class Client {

        /**
         * Whether RestClient, RestTemplate and WebClient built from Spring Boot's builders send the job, the item and
         * the fencing token with calls made inside a run.
         */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** {@code sharding.fencing.http.server.*}. */
    public static class Server {

        /**
         * Whether a filter (servlet or WebFlux) admits calls carrying a fencing token only with the highest token seen
         * for their job and item, refusing the others with 409 Conflict.
         */
        private boolean enabled = false;

        /** The requests the filter checks, as servlet URL patterns (/orders, /orders/*, *.json), in WebFlux too. */
        private List<String> urlPatterns = new ArrayList<>(List.of("/*"));

        /** Whether a request without the fencing headers is refused (428 Precondition Required) rather than passed. */
        private boolean required = false;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public List<String> getUrlPatterns() {
            return urlPatterns;
        }

        public void setUrlPatterns(List<String> urlPatterns) {
            this.urlPatterns = urlPatterns;
        }

        public boolean isRequired() {
            return required;
        }

        public void setRequired(boolean required) {
            this.required = required;
        }
    }
}
