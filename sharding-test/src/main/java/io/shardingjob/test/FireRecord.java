package io.shardingjob.test;

import io.shardingjob.boot.ExecutionRecord;
import io.shardingjob.core.execution.ClaimState;
import io.shardingjob.core.execution.LedgerFire;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * One fire of a job, as the ledger holds it and as the instances of a {@link ShardingCluster} recorded their runs of
 * it, with the judgements a test makes of it. Each judgement throws an {@link AssertionError} that names the job, the
 * fire, the item and the runs at fault.
 *
 * @param total the job's items
 * @param runs every run of the fire's items the running instances recorded (their recent executions), retries too
 */
public record FireRecord(String job, Instant fireTime, int total, LedgerFire ledger, List<ExecutionRecord> runs) {

    public FireRecord {
        runs = List.copyOf(runs);
    }

    /** The runs of one item, earliest first. */
    public List<ExecutionRecord> runsOf(int item) {
        return runs.stream()
                .filter(run -> run.item() == item)
                .sorted(Comparator.comparing(ExecutionRecord::start))
                .toList();
    }

    /** The item's claim in the ledger, if it has one. */
    public Optional<LedgerFire.Item> claimOf(int item) {
        return ledger.items().stream().filter(claim -> claim.item() == item).findFirst();
    }

    /**
     * Every item of the fire ended done in the ledger, after exactly one run that succeeded: none missed, none run to
     * success twice (a failed attempt and its successful retry count as one).
     */
    public FireRecord assertEveryItemRanOnce() {
        List<String> faults = new ArrayList<>();
        for (int item = 0; item < total; item++) {
            Optional<LedgerFire.Item> claim = claimOf(item);
            long succeeded = runsOf(item).stream()
                    .filter(run -> run.outcome() == ExecutionRecord.Outcome.SUCCESS)
                    .count();
            if (claim.isEmpty() || claim.get().state() != ClaimState.DONE) {
                faults.add("item " + item + " is "
                        + claim.map(found -> found.state().toString()).orElse("not claimed") + " in the ledger");
            } else if (succeeded != 1) {
                faults.add("item " + item + " succeeded " + succeeded + " times: " + describe(runsOf(item)));
            }
        }
        return judged(faults, "every item to run once");
    }

    /**
     * No item of the fire ran on two instances at the same time: a run that lost its item (a zombie) and the run of its
     * next owner may both have run, one after the other, never side by side.
     */
    public FireRecord assertNoItemRanOnTwoInstancesAtOnce() {
        List<String> faults = new ArrayList<>();
        for (int item = 0; item < total; item++) {
            List<ExecutionRecord> ofItem = runsOf(item);
            for (int i = 0; i < ofItem.size(); i++) {
                for (int j = i + 1; j < ofItem.size(); j++) {
                    ExecutionRecord first = ofItem.get(i);
                    ExecutionRecord second = ofItem.get(j);
                    if (!first.instance().equals(second.instance())
                            && second.start().isBefore(first.end())) {
                        faults.add("item " + item + " ran at once on " + describe(List.of(first, second)));
                    }
                }
            }
        }
        return judged(faults, "no item to run on two instances at once");
    }

    private FireRecord judged(List<String> faults, String expected) {
        if (!faults.isEmpty()) {
            throw new AssertionError("Job '" + job + "', fire at " + fireTime + ": expected " + expected + ", but "
                    + String.join("; ", faults));
        }
        return this;
    }

    /** Whether every item an instance ended has that instance's run among the runs: the executions caught up. */
    boolean everyEndIsInTheRuns() {
        return ledger.items().stream()
                .filter(claim -> claim.state() == ClaimState.DONE || claim.state() == ClaimState.FAILED)
                .allMatch(claim -> runs.stream()
                        .anyMatch(run ->
                                run.item() == claim.item() && run.instance().equals(claim.instanceId())));
    }

    private static String describe(List<ExecutionRecord> runs) {
        return runs.stream()
                .map(run -> run.instance() + " " + run.start() + ".." + run.end() + " " + run.outcome())
                .toList()
                .toString();
    }
}
