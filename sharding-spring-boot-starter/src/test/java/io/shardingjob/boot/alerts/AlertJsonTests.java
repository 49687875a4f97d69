package io.shardingjob.boot.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.boot.ShardedJobAlert;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The webhook's body, written by hand, is JSON that any parser reads back as the alert. */
class AlertJsonTests {

    @Test
    void writesEveryFieldOfTheAlertAndTheSuppressedCountAsJsonAnyParserReads() {
        Instant fireTime = Instant.now().minusSeconds(5);
        ShardedJobAlert alert = new ShardedJobAlert(
                ShardedJobAlert.Type.FIRE_FAILED,
                "order\"Sync",
                fireTime,
                List.of(1, 4),
                "host@-@1",
                fireTime.plusSeconds(2),
                "2 of 6 items failed:\n\t1 \\ FAILED on a\u0001");

        JsonNode json = JsonMapper.builder().build().readTree(AlertJson.write(alert, 7));

        assertThat(json.get("type").asString()).isEqualTo("FIRE_FAILED");
        assertThat(json.get("job").asString()).isEqualTo("order\"Sync");
        assertThat(Instant.parse(json.get("fireTime").asString())).isEqualTo(fireTime);
        assertThat(json.get("items").values()).extracting(JsonNode::asInt).containsExactly(1, 4);
        assertThat(json.get("instanceId").asString()).isEqualTo("host@-@1");
        assertThat(Instant.parse(json.get("raisedAt").asString())).isEqualTo(fireTime.plusSeconds(2));
        assertThat(json.get("message").asString()).isEqualTo("2 of 6 items failed:\n\t1 \\ FAILED on a\u0001");
        assertThat(json.get("suppressed").asInt()).isEqualTo(7);
    }
}
