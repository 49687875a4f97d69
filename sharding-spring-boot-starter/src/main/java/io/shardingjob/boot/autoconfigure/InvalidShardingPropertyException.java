package io.shardingjob.boot.autoconfigure;

/**
 * A {@code sharding.*} property, not of one job, prevents start-up: it names the property and what to change, for
 * {@link InvalidShardingPropertyFailureAnalyzer}.
 */
public final class InvalidShardingPropertyException extends RuntimeException {

    private final String property;

    private final String action;

    public InvalidShardingPropertyException(String property, String problem, String action) {
        super("Property " + property + " " + problem);
        this.property = property;
        this.action = action;
    }

    /** The property to change, e.g. {@code sharding.alerts.webhook.url}. */
    public String property() {
        return property;
    }

    /** What to change, for the failure analysis. */
    public String action() {
        return action;
    }
}
