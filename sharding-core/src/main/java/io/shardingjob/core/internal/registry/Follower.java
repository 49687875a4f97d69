package io.shardingjob.core.internal.registry;

import io.shardingjob.core.config.FollowOn;
import io.shardingjob.core.config.JobConfiguration;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/**
 * A job that follows another, as the upstream's instances read it from the upstream's {@code followers} node
 * ({@link JobNodes#follower}): what they need to record the follower's fire when one of their fires completes, without
 * reading the follower's configuration.
 *
 * @param upstreams every job it follows, this one included: the others are awaited (fan-in)
 */
public record Follower(String job, FollowOn on, List<String> upstreams, boolean itemWise) {

    private static final String ON = "on";
    private static final String UPSTREAMS = "upstreams";
    private static final String ITEM_WISE = "itemWise";

    public Follower {
        upstreams = List.copyOf(upstreams);
    }

    public static Follower of(JobConfiguration configuration) {
        return new Follower(configuration.name(), configuration.on(), configuration.after(), configuration.itemWise());
    }

    byte[] encode() {
        StringBuilder text = new StringBuilder();
        JobConfigurationCodec.appendLine(text, ON, on.value());
        JobConfigurationCodec.appendLine(text, UPSTREAMS, String.join(",", upstreams));
        JobConfigurationCodec.appendLine(text, ITEM_WISE, itemWise);
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** A followers node's data, read; empty when it cannot be (a newer or damaged node is no follower to record). */
    static Optional<Follower> decode(String job, byte @Nullable [] data) {
        if (data == null) {
            return Optional.empty();
        }
        Properties fields = new Properties();
        try {
            fields.load(new StringReader(new String(data, StandardCharsets.UTF_8)));
            return Optional.of(new Follower(
                    job,
                    FollowOn.parse(job, fields.getProperty(ON, FollowOn.SUCCESS.value())),
                    JobConfigurationCodec.names(fields.getProperty(UPSTREAMS, "")),
                    Boolean.parseBoolean(fields.getProperty(ITEM_WISE))));
        } catch (IOException | RuntimeException unreadable) {
            return Optional.empty();
        }
    }
}
