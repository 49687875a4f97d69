package io.shardingjob.core.execution;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/** The {@code key=value} lines the execution nodes are stored as, readable with {@code get} in zkCli. */
final class KeyValueText {

    private KeyValueText() {}

    static Map<String, String> parse(byte[] data) {
        Map<String, String> fields = new HashMap<>();
        for (String line : new String(data, StandardCharsets.UTF_8).split("\n")) {
            int equals = line.indexOf('=');
            if (equals > 0) {
                fields.put(line.substring(0, equals), line.substring(equals + 1));
            }
        }
        return fields;
    }
}
