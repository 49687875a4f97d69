package io.shardingjob.boot.alerts;

import io.shardingjob.boot.ShardedJobAlert;

/**
 * The webhook's body: the alert's fields as a JSON object, with the number of alerts of the job suppressed by the
 * throttle since the previous request. Written by hand, as the alert is flat, so that the webhook works whichever
 * Jackson (2, 3 or none) the application has, and its fields never change with a mapper's settings.
 */
final class AlertJson {

    private AlertJson() {}

    static String write(ShardedJobAlert alert, int suppressed) {
        StringBuilder json = new StringBuilder(256).append('{');
        field(json, "type", alert.type().name()).append(',');
        field(json, "job", alert.job()).append(',');
        field(json, "fireTime", alert.fireTime().toString()).append(',');
        json.append("\"items\":[");
        for (int i = 0; i < alert.items().size(); i++) {
            json.append(i == 0 ? "" : ",").append(alert.items().get(i));
        }
        json.append("],");
        field(json, "instanceId", alert.instanceId()).append(',');
        field(json, "raisedAt", alert.raisedAt().toString()).append(',');
        field(json, "message", alert.message()).append(',');
        return json.append("\"suppressed\":").append(suppressed).append('}').toString();
    }

    private static StringBuilder field(StringBuilder json, String name, String value) {
        json.append('"').append(name).append("\":\"");
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                case '\r' -> json.append("\\r");
                case '\t' -> json.append("\\t");
                default -> {
                    if (c < 0x20) {
                        json.append(String.format("\\u%04x", (int) c));
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        return json.append('"');
    }
}
