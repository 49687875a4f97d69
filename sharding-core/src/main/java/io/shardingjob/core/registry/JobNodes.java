package io.shardingjob.core.registry;

/**
 * Every ZooKeeper path of one job, relative to the namespace. This is the only place paths are built; the README's
 * node layout table is written from it.
 *
 * <pre>
 * /{job}/config                          persistent  the shared job configuration (key=value lines)
 * /{job}/instances/{instanceId}          ephemeral   a live instance: host, pid, start time
 * /{job}/leader/election/latch/...       ephemeral   Curator LeaderLatch participants
 * /{job}/leader/election/instance        ephemeral   the leader's instance id
 * /{job}/leader/sharding/necessary       persistent  present while a reshard is needed (the flag)
 * /{job}/leader/sharding/processing      ephemeral   present while the leader writes a new assignment
 * /{job}/sharding/assignment             persistent  epoch, total and every instance's items
 * /{job}/disabled/instances/{instanceId} persistent  an operator disabled this instance for the job
 * /{job}/leaving/{instanceId}            ephemeral   the instance is shutting down: it gets no items, finishes its own
 * /{job}/disabled/items/{item}           persistent  an operator disabled this item
 * /{job}/running/{item}                  persistent  the item is planned or running: owner, session, epoch, fire
 * /{job}/failover/queue/{item}@{fireMillis} persistent  an orphan: an item of a fire that its owner did not complete
 * /{job}/failover/owners/{item}          persistent  who took the item over, until the next reshard
 * /{job}/fires/{instanceId}~{session}    persistent  the last fires a session started: times, epochs, items
 * /{job}/completions/{fireMillis}/items/{item} persistent  an item of that fire ended: outcome, instance, total
 * /{job}/completions/{fireMillis}/claim  ephemeral   an instance is calling the fire's completion listener
 * /{job}/completions/{fireMillis}/done   persistent  the fire's completion listener was called
 * /{job}/ledger                          persistent  the fire ledger; data: the fire every earlier fire is settled by
 * /{job}/ledger/{fireMillis}             persistent  one fire, named by its scheduled time
 * /{job}/ledger/{fireMillis}/{item}      persistent  the claim of one item of that fire: owner, session, state, times
 * </pre>
 */
public final class JobNodes {

    private final String root;

    public JobNodes(String jobName) {
        this.root = "/" + jobName;
    }

    public String root() {
        return root;
    }

    public String config() {
        return root + "/config";
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

    public String reshardProcessing() {
        return root + "/leader/sharding/processing";
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

    public String running() {
        return root + "/running";
    }

    public String runningItem(int item) {
        return running() + "/" + item;
    }

    public String failoverQueue() {
        return root + "/failover/queue";
    }

    /** One orphan per item and fire, so that every missed fire of an item runs, each with its own context. */
    public String failoverQueueItem(int item, java.time.Instant fireTime) {
        return failoverQueue() + "/" + item + "@" + fireTime.toEpochMilli();
    }

    /** The item of an orphan's node name. */
    public static int queuedItem(String name) {
        int at = name.indexOf('@');
        return Integer.parseInt(at < 0 ? name : name.substring(0, at));
    }

    public String failoverOwners() {
        return root + "/failover/owners";
    }

    public String failoverOwner(int item) {
        return failoverOwners() + "/" + item;
    }

    public String fires() {
        return root + "/fires";
    }

    public String completions() {
        return root + "/completions";
    }

    /** A fire's node, named by its fire time in epoch milliseconds so that names sort by time. */
    public String completion(java.time.Instant fireTime) {
        return completions() + "/" + fireTime.toEpochMilli();
    }

    /** One node per instance and session, so that a re-registered instance never overwrites what its dead session left. */
    public String fire(String instanceId, long sessionId) {
        return fires() + "/" + fireRecordName(instanceId, sessionId);
    }

    public static String fireRecordName(String instanceId, long sessionId) {
        return instanceId + "~" + Long.toHexString(sessionId);
    }

    /** The instance id part of a fire record's name. */
    public static String fireRecordInstance(String name) {
        int tilde = name.lastIndexOf('~');
        return tilde < 0 ? name : name.substring(0, tilde);
    }

    public String ledger() {
        return root + "/ledger";
    }

    /** A fire's ledger node, named by its scheduled time in epoch milliseconds so that names sort by time. */
    public String ledgerFire(java.time.Instant fireTime) {
        return ledger() + "/" + fireTime.toEpochMilli();
    }

    /** The claim of one item of one fire: its creation decides who runs the item for that fire. */
    public String claim(java.time.Instant fireTime, int item) {
        return ledgerFire(fireTime) + "/" + item;
    }

    /** The last segment of a path, e.g. the instance id of an instance node. */
    public static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    /** The parent of a path, e.g. {@code /job/instances} for an instance node. */
    public static String parent(String path) {
        int slash = path.lastIndexOf('/');
        return slash <= 0 ? "/" : path.substring(0, slash);
    }
}
