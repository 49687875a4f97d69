package io.shardingjob.core.config;

import java.util.List;

/**
 * What one job costs ZooKeeper against the limits it must stay under, with what is near or past one: the figures the
 * judgement was made from, and a {@link Finding} per limit the job is within a margin of ({@link Severity#WARNING}) or
 * past ({@link Severity#REFUSAL}). Every limit comes from ZooKeeper's {@code jute.maxbuffer}, the largest request or
 * answer a client and a server take (1,048,575 bytes by default): a request or an answer past it drops the connection,
 * which suspends every job of the client, and the client sends the same request again.
 *
 * <p>A job refuses to start with a refusal; a warning is logged at its start and shown by the starter's health detail,
 * endpoint and console.
 *
 * @param figures what the judgement was made from
 * @param findings the limits near or past, the worst first
 */
public record CoordinationBudget(Figures figures, List<Finding> findings) {

    /**
     * What a claim of one item takes on every ZooKeeper server, path and data, by estimate: a claim's data is about
     * 120 bytes, its path 60 to 90, and the server keeps both with a stat per node (docs/performance.md).
     */
    public static final int BYTES_PER_CLAIM = 250;

    public CoordinationBudget {
        findings = List.copyOf(findings);
    }

    /** Whether a finding says the job cannot run within ZooKeeper's limits. */
    public boolean refused() {
        return findings.stream().anyMatch(finding -> finding.severity() == Severity.REFUSAL);
    }

    /** The findings that are warnings only. */
    public List<Finding> warnings() {
        return findings.stream()
                .filter(finding -> finding.severity() == Severity.WARNING)
                .toList();
    }

    /**
     * The nodes the job's ledger holds once steady: each fire retained with a claim per item. Measured fires when an
     * audit has listed the ledger, else the fires the schedule makes due within a retention.
     */
    public long ledgerNodes() {
        return figures.firesRetained() * (1L + figures.itemsPerFire());
    }

    /** The bytes the job's ledger holds on every server once steady, by estimate ({@link #BYTES_PER_CLAIM}). */
    public long ledgerBytes() {
        return ledgerNodes() * BYTES_PER_CLAIM;
    }

    /**
     * One job's figures, as the budget reads them.
     *
     * @param jobName the job
     * @param itemsPerFire the items of one fire: claim nodes under its fire node
     * @param firesRetained the fires the ledger holds at once: as listed by the latest audit, or the fires the job's
     *     schedule makes due within the ledger's retention and one reconcile interval (after which the leader deletes
     *     them)
     * @param configurationBytes the job's configuration as stored, in bytes
     * @param itemParametersBytes its {@code shardingItemParameters} in UTF-8 bytes
     * @param jobParameterBytes its {@code jobParameter} in UTF-8 bytes
     * @param packetBytes the client's {@code jute.maxbuffer}: the largest answer it takes
     * @param ledgerWriteOperations the write operations this instance's ledger of the job asked for since it started
     *     (claims, starts, ends, fire nodes, deletions), each counting once however many went in one request: a meter
     *     turns it into writes per second; not judged against a limit
     */
    public record Figures(
            String jobName,
            int itemsPerFire,
            long firesRetained,
            int configurationBytes,
            int itemParametersBytes,
            int jobParameterBytes,
            int packetBytes,
            long ledgerWriteOperations) {}

    /** A limit the job is near or past, with the arithmetic that says so. */
    public record Finding(Cliff cliff, Severity severity, long value, long limit, String arithmetic) {

        /** The setting to change, as {@link JobSetting#key()} names it. */
        public String property() {
            return cliff.property();
        }

        /** What an operator reads: near or past which limit, by how much, and why it matters. */
        public String message() {
            return cliff.property() + ": " + arithmetic + " (" + percent() + " % of the limit"
                    + (severity == Severity.REFUSAL ? ", past it" : "") + ")";
        }

        /** The value as a share of the limit, in whole percent rounded down. */
        public long percent() {
            return limit == 0 ? 0 : value * 100 / limit;
        }
    }

    /** How close: within the margin, or past the limit. */
    public enum Severity {
        WARNING,
        REFUSAL
    }

    /** ZooKeeper's limits a job can come near, each with the setting that moves the job towards it. */
    public enum Cliff {
        /** The audits' read of a few fires with their claims, one answer under {@code jute.maxbuffer}. */
        FIRE_READ("shardingTotalCount"),
        /** The job's configuration stored in one node, under half a packet. */
        CONFIGURATION("configuration"),
        /** The item parameters, stored in the configuration and read with it. */
        ITEM_PARAMETERS("shardingItemParameters"),
        /** The job parameter, stored in the configuration and in a triggered fire's ledger node. */
        JOB_PARAMETER("jobParameter"),
        /** The listing of the job's ledger, every fire retained, one answer every audit reads. */
        LEDGER_LISTING("ledgerRetention");

        private final String property;

        Cliff(String property) {
            this.property = property;
        }

        public String property() {
            return property;
        }
    }
}
