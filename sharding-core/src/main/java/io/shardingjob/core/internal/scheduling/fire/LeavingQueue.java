package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.internal.ledger.Claim;
import org.jspecify.annotations.Nullable;

/**
 * What an {@link ItemRun} finds as it leaves the item executor's queue ({@link ItemRun#leave}): the outcome of its
 * fire's starts written ahead ({@link FireStarts}), which decides whether it still writes its start.
 *
 * @param ahead what came of its start written ahead of it by a run of its fire that left before; null when none was
 * @param writtenAhead its claim as started before it left the queue, if it was: by that start, or made so
 * @param last whether no other run of its fire is still to leave the queue
 */
record LeavingQueue(
        FireStarts.@Nullable Ahead ahead, @Nullable Claim writtenAhead, boolean last) {}
