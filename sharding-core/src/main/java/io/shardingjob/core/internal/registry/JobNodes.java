package io.shardingjob.core.internal.registry;

/**
 * Every ZooKeeper path of one job, relative to the namespace. This is the only place paths are built; the node
 * layout table of docs/ledger.md is written from it.
 *
 * <pre>
 * /{job}/config                          persistent  the shared job configuration (key=value lines)
 * /{job}/history                         persistent  the schedule history: from when each cron, enabled state, count
 *                                                    and set of disabled items held (one line per change), so that
 *                                                    only the fires that were due are made up
 * /{job}/sizes/{config|history|assignment}
 *                                        persistent  how large that node is (its data's length in decimal), written
 *                                                    in the same multi-operation as it: merged reads are sized from
 *                                                    it; empty or missing when an older version or a hand wrote it
 * /{job}/instances/{instanceId}          ephemeral   a live instance: host, pid, start time
 * /{job}/leader/election/latch/...       ephemeral   the election's candidates, _c_{guid}-latch-{sequence}: the
 *                                                    first numbered leads
 * /{job}/leader/election/instance        ephemeral   the leader's instance id
 * /{job}/leader/sharding/necessary       persistent  present while a reshard is needed (the flag)
 * /{job}/sharding/assignment             persistent  epoch, total and every instance's items
 * /{job}/disabled/instances/{instanceId} persistent  an operator disabled this instance for the job
 * /{job}/leaving/{instanceId}            ephemeral   the instance is shutting down or not ready (LeavingMark): it
 *                                                    gets no items, finishes its own
 * /{job}/disabled/items/{item}           persistent  an operator disabled this item
 * /.ledger/{job}                        persistent  the fire ledger, outside the job's root so that one watch on the
 *                                                    root covers the small state and none of the ledger's traffic;
 *                                                    data: settled=the fire every earlier fire is settled by (the
 *                                                    watermark audits start after), and open=the fires before it
 *                                                    still open (runs that outlived the retention)
 * /.ledger/{job}/{fireMillis}           persistent  one fire, named by its scheduled time; data: who completes it,
 *                                                    and for an operator's fire its source and job parameter
 * /.ledger/{job}/{fireMillis}/{item}    persistent  the claim of one item of that fire: instance, session, attempt,
 *                                                    state, source, epoch, total, retry, times, fencing token
 * /{job}/manual-fire                     persistent  the last manual fires announced (fireMillis,…, oldest first):
 *                                                    how every instance hears of an operator's fire at once, and of
 *                                                    a fire its upstream jobs recorded
 * /{job}/followers/{follower}            persistent  a job that follows this one (its after names it); data: its on,
 *                                                    its upstreams and item-wise, written by the follower's instances
 * /{job}/upstreams                       persistent  the jobs whose followers node names this job, as its instances
 *                                                    last registered them: what to unregister when its after changes
 * /.definitions/{job}                    persistent  a job defined at run time; data: the name of its handler
 * /.clock                                persistent  empty; written by every instance to read ZooKeeper's clock in
 *                                                    its mtime (built in RegistryCenter: the public API may not use
 *                                                    this class)
 * </pre>
 *
 * <p>Job names start with a letter or a digit, so {@code /.definitions}, {@code /.ledger} and {@code /.clock} can be no
 * job's root. Everything under a job's root is its small state, which every instance caches with one recursive watch
 * ({@link #cached()}); the ledger, which grows and changes with every fire and item, is kept apart from it.
 */
public final class JobNodes {

    private static final String LEDGERS = "/.ledger";

    private final String root;
    private final String ledger;

    public JobNodes(String jobName) {
        this.root = "/" + jobName;
        this.ledger = LEDGERS + "/" + jobName;
    }

    public String root() {
        return root;
    }

    public String config() {
        return root + "/config";
    }

    /** Written with every change of what it records, in the same multi-operation; small and bounded, so cached. */
    public String history() {
        return root + "/history";
    }

    public String sizes() {
        return root + "/sizes";
    }

    /** The record of how large one of {@link #sized()} is ({@code SizeRecord}), written in the same multi as it. */
    public String size(String sizedNode) {
        return sizes() + "/" + name(sizedNode);
    }

    /** The nodes whose data grow with the job's items, each with a size record. */
    public java.util.List<String> sized() {
        return java.util.List.of(config(), history(), assignment());
    }

    public String instances() {
        return root + "/instances";
    }

    public String instance(String instanceId) {
        return instances() + "/" + instanceId;
    }

    public String leaderLatch() {
        return root + "/leader/election/latch";
    }

    public String leaderInstance() {
        return root + "/leader/election/instance";
    }

    public String reshardNecessary() {
        return root + "/leader/sharding/necessary";
    }

    public String assignment() {
        return root + "/sharding/assignment";
    }

    public String disabledInstances() {
        return root + "/disabled/instances";
    }

    public String disabledInstance(String instanceId) {
        return disabledInstances() + "/" + instanceId;
    }

    public String leavingInstances() {
        return root + "/leaving";
    }

    public String leavingInstance(String instanceId) {
        return leavingInstances() + "/" + instanceId;
    }

    public String disabledItems() {
        return root + "/disabled/items";
    }

    public String disabledItem(int item) {
        return disabledItems() + "/" + item;
    }

    /**
     * The small state every instance caches with one recursive watch: the job's root, under which nothing grows with
     * fires or items.
     */
    public String cached() {
        return root;
    }

    /**
     * The persistent nodes a job's start makes sure of, each after its parent: the containers the recipes and the
     * operators write under, and the single nodes whose later writes set data rather than create (a size record is
     * created empty: the node it is of is then reckoned as unrecorded until written with it).
     */
    public java.util.List<String> structure() {
        return java.util.List.of(
                root,
                instances(),
                root + "/disabled",
                disabledInstances(),
                disabledItems(),
                leavingInstances(),
                LEDGERS,
                ledger(),
                manualFire(),
                rerun(),
                followers(),
                root + "/sharding",
                root + "/leader",
                root + "/leader/election",
                leaderLatch(),
                root + "/leader/sharding",
                sizes(),
                size(config()),
                size(history()),
                size(assignment()));
    }

    /** The jobs following this one, one child each, read by whoever completes this job's fires. Small: cached. */
    public String followers() {
        return root + "/followers";
    }

    public String follower(String followerJob) {
        return followers() + "/" + followerJob;
    }

    /** The upstream jobs this job registered itself with as a follower. */
    public String upstreams() {
        return root + "/upstreams";
    }

    /**
     * Names the latest fire an operator asked to re-run, so that every instance hears of it through its cache and
     * audits at once. One node, overwritten: what is reopened lives in the fire's claims.
     */
    public String rerun() {
        return root + "/rerun";
    }

    /**
     * Names the latest fire an operator asked for, so that every instance hears of it through its cache at once. One
     * node, overwritten: what the fire is lives in its ledger node.
     */
    public String manualFire() {
        return root + "/manual-fire";
    }

    /** Apart from the job's root, which every instance watches, since it changes with every item. */
    public String ledger() {
        return ledger;
    }

    /** A fire's ledger node, named by its scheduled time in epoch milliseconds so that names sort by time. */
    public String ledgerFire(java.time.Instant fireTime) {
        return ledger() + "/" + fireTime.toEpochMilli();
    }

    /** The claim of one item of one fire: its creation decides who runs the item for that fire. */
    public String claim(java.time.Instant fireTime, int item) {
        return ledgerFire(fireTime) + "/" + item;
    }

    public static String definitions() {
        return "/.definitions";
    }

    public static String definition(String jobName) {
        return definitions() + "/" + jobName;
    }

    /** The last segment of a path, e.g. the instance id of an instance node. */
    public static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
