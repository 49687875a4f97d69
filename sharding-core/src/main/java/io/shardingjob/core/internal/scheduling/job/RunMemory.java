package io.shardingjob.core.internal.scheduling.job;

/**
 * What this instance remembers of its runs of one job, in memory, each part with its own state and lock: the items
 * reserved or running here, the claims this session holds open, the fires it knows of, the ends of its runs (recorded
 * or owed) and what its last audit saw. The ledger is the truth about who runs what; these only keep one instance from
 * racing itself and tell its audit which fires to look at. Each stage takes the parts it uses.
 */
public record RunMemory(
        Reservations reservations, OpenClaims claims, LocalFires fires, LocalEnds ends, LastAudit lastAudit) {

    public static RunMemory empty() {
        LocalFires fires = new LocalFires();
        return new RunMemory(new Reservations(), new OpenClaims(fires), fires, new LocalEnds(), new LastAudit());
    }
}
