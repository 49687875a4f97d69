package io.shardingjob.boot.actuate;

import io.shardingjob.core.JobCoordinator;
import io.shardingjob.core.sharding.Assignment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * An instance of a job in {@link JobDescriptor}, live or still named in the assignment: where an operator reads which
 * items each instance owns and which instances were taken out of the assignment.
 *
 * @param enabled whether the instance takes part in the assignment
 * @param standingBy whether the instance, though registered, takes no items from the next reshard on: its application
 *     is not ready for traffic ({@code sharding.availability.enabled}), or it is closing
 */
public record InstanceDescriptor(String id, boolean enabled, List<Integer> items, boolean standingBy) {

    /**
     * The live instances and those the assignment still names (a departed owner until the next reshard), sorted by id.
     */
    static List<InstanceDescriptor> allOf(JobCoordinator job, Assignment assignment) {
        Set<String> disabledInstances = new HashSet<>(job.disabledInstances());
        Set<String> leavingInstances = new HashSet<>(job.leavingInstances());
        Set<String> instanceIds = new TreeSet<>(job.liveInstances());
        instanceIds.addAll(assignment.itemsByInstance().keySet());
        List<InstanceDescriptor> instances = new ArrayList<>();
        for (String id : instanceIds) {
            instances.add(new InstanceDescriptor(
                    id, !disabledInstances.contains(id), assignment.itemsOf(id), leavingInstances.contains(id)));
        }
        return instances;
    }
}
