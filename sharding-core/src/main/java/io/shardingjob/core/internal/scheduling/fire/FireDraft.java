package io.shardingjob.core.internal.scheduling.fire;

import io.shardingjob.core.internal.ledger.Claim;
import io.shardingjob.core.internal.ledger.ClaimsAheadRule.AheadFate;
import io.shardingjob.core.internal.scheduling.job.JobSnapshot;
import io.shardingjob.core.internal.scheduling.job.Reservation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * One fire's plan while it is made: what it runs, what it hands on, what it skips and why; with the job as it stood
 * when the plan began ({@link JobSnapshot}, with the items disabled then) and the time its claims are made at, read once
 * for all of them.
 */
final class FireDraft {

    final JobSnapshot job;
    final Instant now;
    final Set<Integer> disabled;
    final Map<Integer, String> skipped = new TreeMap<>();
    final Map<Integer, Reservation> reservations = new TreeMap<>();
    final List<Claim> won = new ArrayList<>();
    final Map<AheadFate, List<Claim>> handedOn = new EnumMap<>(AheadFate.class);

    /** Items still running from an earlier fire, here or elsewhere: this fire overran into them. */
    final Map<Integer, String> overran = new TreeMap<>();

    FireDraft(JobSnapshot job, Instant now) {
        this.job = job;
        this.now = now;
        this.disabled = job.disabledItems();
    }
}
