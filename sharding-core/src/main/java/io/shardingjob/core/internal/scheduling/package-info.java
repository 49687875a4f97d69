/**
 * One job on one instance, behind {@code JobCoordinator}: {@link io.shardingjob.core.internal.scheduling.JobRuntime}
 * (its lifecycle, and the way to the job's state, fires, operations and ledger reads),
 * {@link io.shardingjob.core.internal.scheduling.JobWiring} (which builds the parts, each with the parts it uses) and
 * {@link io.shardingjob.core.internal.scheduling.JobParts} (which starts and closes them in order). The stages live in
 * sub-packages, in the order a fire meets them: {@code job} (what every stage reads and remembers), {@code fire} (a
 * fire's items from the trigger to the recorded end), {@code audit} (what was left undone: taken over, made up, written
 * late) and {@code session} (registry, connection, timer and lifecycle reactions). {@code docs/architecture.md} follows a fire through them. Internal, not API.
 */
@NullMarked
package io.shardingjob.core.internal.scheduling;

import org.jspecify.annotations.NullMarked;
