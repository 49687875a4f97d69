package io.shardingjob.boot.actuate;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.config.JobConfiguration;
import io.shardingjob.core.sharding.Assignment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * An item of a job in {@link JobDescriptor}: where an operator reads who owns the item, whether it runs now, whether
 * another instance took it over, and whether it is disabled.
 *
 * @param instance its owner under the current epoch, {@code null} when none
 * @param running whether some instance marks it running now
 * @param failoverInstance the instance that took it over from a crashed or departed owner since the last reshard,
 *     {@code null} when none did
 * @param checkpoint the last checkpoint saved in its open claim: where its run stands, or where a run that continues a
 *     cut one resumes; {@code null} when none was saved
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record ItemDescriptor(
        int item,
        String parameter,
        @Nullable String instance,
        boolean running,
        @Nullable String failoverInstance,
        boolean disabled,
        @Nullable String checkpoint) {

    /** Items {@code 0} to {@code total - 1}, each with its owner under {@code assignment}. */
    static List<ItemDescriptor> allOf(
            JobCoordinator job, JobConfiguration configuration, Assignment assignment, int total) {
        Map<Integer, String> owners = assignment.ownersByItem();
        Set<Integer> running = new HashSet<>(job.ledger().runningItems());
        Set<Integer> disabledItems = new HashSet<>(job.disabledItems());
        Map<Integer, String> failoverOwners = job.ledger().failoverOwners();
        Map<Integer, String> checkpoints = job.ledger().checkpoints();
        List<ItemDescriptor> items = new ArrayList<>();
        for (int item = 0; item < total; item++) {
            items.add(new ItemDescriptor(
                    item,
                    configuration.itemParameters().get(item),
                    owners.get(item),
                    running.contains(item),
                    failoverOwners.get(item),
                    disabledItems.contains(item),
                    checkpoints.get(item)));
        }
        return items;
    }
}
