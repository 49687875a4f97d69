package io.shardingjob.core.internal.requests;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.SetDataRequest;
import org.jspecify.annotations.Nullable;

/**
 * Group commit across jobs: the multi-operations that every job of one Curator client asks for while one of theirs is
 * on its way are sent together, as one multi, once it is answered (one level above each job's own
 * {@link GroupCommit}). The claims, starts and ends of a thousand jobs firing at one instant then cost the ensemble a
 * few requests rather than thousands; a lone request is sent at once.
 *
 * <p>Writes and reads go in separate lanes, since ZooKeeper does not mix them in one multi ({@link MergedAnswers}
 * shares a merged answer). A connection loss or an expired session fails every part of the request, as it would have
 * failed each. An answer larger than the client takes in one (its {@code jute.maxbuffer}) drops the connection, and
 * merged reads may come to that where each alone does not: the reads of a merged request that lost the connection are
 * each reckoned at a whole request's worth until one of them is answered, so that asked again they go alone.
 *
 * <p>Parts keep their order within a lane, and a part is never split: a job's request still reaches the server whole
 * and after the ones it asked for before.
 */
final class ClientMultis {

    /** One per client: the jobs of one client share its session, and so its requests. */
    private static final Map<CuratorFramework, ClientMultis> BY_CLIENT =
            Collections.synchronizedMap(new WeakHashMap<>());

    /**
     * What the answer to one merged read may come to, by estimate: half of the client's default {@code jute.maxbuffer},
     * which an answer must stay under (a larger one drops the connection).
     */
    static final long MAX_READ_ANSWER_BYTES = 512 * 1024;

    /** A listing of the ledger not read yet: a fire of ten thousand items lists about 80 kB. */
    static final long UNKNOWN_LISTING_BYTES = 128 * 1024;

    /** What the ledger's reads may answer, and any reads whose caller does not say. */
    static final AnswerSizes.Bounds LEDGER_READS =
            new AnswerSizes.Bounds(UNKNOWN_LISTING_BYTES, ClientRequests.READ_DATA_BYTES, Map.of());

    static final int READS_ON_THEIR_WAY = 4;

    /** Sends one multi on the session and answers it; {@link ClientRequests#multiAsync} without the merging. */
    interface Sender {
        CompletableFuture<MultiAnswer> send(String name, List<Op> ops);
    }

    private final Lane writes = new Lane(true);
    private final Lane reads = new Lane(false);

    ClientMultis(@Nullable String namespace) {
        this.sizes = new AnswerSizes(namespace);
    }

    private final AnswerSizes sizes;

    /**
     * The client's coalescer. It holds no reference to the client (each queued part brings the sender it came
     * through), so that a closed client and its coalescer are collected together.
     */
    static ClientMultis of(CuratorFramework client) {
        return BY_CLIENT.computeIfAbsent(client, each -> new ClientMultis(each.getNamespace()));
    }

    /** Queues the multi in its lane: its own answer, as {@link ClientRequests#multiAsync} completes it. */
    CompletableFuture<MultiAnswer> send(Part part) {
        Lane lane = isRead(part.ops) ? reads : writes;
        lane.queue.add(part);
        lane.sendNext();
        return part.answer;
    }

    /**
     * Reads of nodes that grow with a job's items, sized from their records ({@link SizeRecord}, {@code recordOf}: full
     * path to full path): the records first, with whether each node is there, a few dozen bytes each and merged with the
     * client's other reads, then the reads, each of those nodes reckoned at what its record says (a node not there, at
     * nothing): for the reads that start a job or a reshard, which know nothing of the nodes yet; the registry cache,
     * which holds the records, sizes its reads itself.
     *
     * <p>Race window: a node written again between its record's read and its own, larger, answers more than its record
     * said. Merged with others near a whole answer, that answer may drop the connection; its reads are then sent again
     * alone, each within one answer.
     */
    CompletableFuture<MultiAnswer> sendRecorded(
            Sender through,
            String name,
            List<Op> reads,
            long unknownListingBytes,
            long dataBytes,
            Map<String, String> recordOf) {
        AnswerSizes.Bounds unsized = new AnswerSizes.Bounds(unknownListingBytes, dataBytes, Map.of());
        if (recordOf.isEmpty()) {
            return send(new Part(through, name, reads, unsized));
        }
        List<String> nodes = new ArrayList<>(recordOf.keySet());
        List<Op> records = new ArrayList<>();
        for (String node : nodes) {
            records.add(Op.getData(recordOf.get(node)));
            // Whether the node is there at all, for a few bytes: a missing one (a job's first start) answers nothing.
            records.add(Op.getChildren(node));
        }
        return send(new Part(through, name, records, unsized)).thenCompose(answer -> {
            Map<String, Long> sized = new HashMap<>();
            for (int i = 0; i < nodes.size(); i++) {
                OpResult record = answer.results().get(2 * i);
                sized.put(
                        nodes.get(i),
                        MultiAnswer.isMissing(answer.results().get(2 * i + 1))
                                ? AnswerSizes.STAT_BYTES
                                : SizeRecord.answerBytes(
                                        record instanceof OpResult.GetDataResult found ? found.getData() : null));
            }
            return send(new Part(through, name, reads, new AnswerSizes.Bounds(unknownListingBytes, dataBytes, sized)));
        });
    }

    private static boolean isRead(List<Op> ops) {
        return !ops.isEmpty() && ops.stream().allMatch(op -> op.getKind() == Op.OpKind.READ);
    }

    /** One job's multi, waiting to be sent; any part's sender serves the merged request (they share the client). */
    record Part(
            Sender sender,
            String name,
            List<Op> ops,
            AnswerSizes.Bounds bounds,
            CompletableFuture<MultiAnswer> answer) {

        Part(Sender sender, String name, List<Op> ops, AnswerSizes.Bounds bounds) {
            this(sender, name, List.copyOf(ops), bounds, new CompletableFuture<>());
        }
    }

    /**
     * A queue of parts. A lane of writes has at most one merged request on its way: a refused one sends parts again,
     * ahead of what was queued meanwhile. A lane of reads has up to {@value #READS_ON_THEIR_WAY}: reads are never
     * refused, and a session's requests are answered in the order sent, so that thousands of jobs starting together
     * wait for the server's answers rather than for their round trips one after another (5,000 jobs' restart took 10 s
     * with one, 5 s with four); what is asked while they are all on their way goes together in the next.
     */
    private final class Lane {

        private final boolean atomic;
        private final int mostOnTheirWay;
        private final Queue<Part> queue = new ConcurrentLinkedQueue<>();

        /** Groups to send again as they are, ahead of the queue: what a refused merge left to be answered. */
        private final Deque<List<Part>> again = new ArrayDeque<>();

        /** How many requests of this lane are on their way; guarded by {@code this}. */
        private int onTheirWay;

        Lane(boolean atomic) {
            this.atomic = atomic;
            this.mostOnTheirWay = atomic ? 1 : READS_ON_THEIR_WAY;
        }

        /**
         * Sends the next group unless as many as may be are on their way. Loops rather than recurses over answers that
         * come at once (a closed client fails every request before it is sent), so that no queue length deepens the
         * stack.
         */
        private void sendNext() {
            while (true) {
                List<Part> group;
                synchronized (this) {
                    if (onTheirWay >= mostOnTheirWay) {
                        return;
                    }
                    group = !again.isEmpty() ? again.poll() : take();
                    if (group.isEmpty()) {
                        return;
                    }
                    onTheirWay++;
                }
                CompletableFuture<Void> settled = send(group);
                if (!settled.isDone()) {
                    settled.whenComplete((done, failure) -> {
                        release();
                        sendNext();
                    });
                    continue;
                }
                release();
            }
        }

        private synchronized void release() {
            onTheirWay--;
        }

        /** The queued parts that fit in one request, at least one. */
        private List<Part> take() {
            List<Part> group = new ArrayList<>();
            long bytes = 0;
            int ops = 0;
            for (Part next = queue.peek(); next != null; next = queue.peek()) {
                long added = atomic ? bytes(next.ops) : sizes.answerBytes(next.ops, next.bounds);
                boolean fits = atomic
                        ? bytes + added <= ClientRequests.MAX_WRITE_BYTES
                        : bytes + added <= MAX_READ_ANSWER_BYTES
                                && ops + next.ops.size() <= ClientRequests.MAX_OPS_PER_MULTI;
                if (!group.isEmpty() && !fits) {
                    break;
                }
                group.add(queue.poll());
                bytes += added;
                ops += next.ops.size();
            }
            return group;
        }

        /** Sends the group as one request; completes once every part has its answer or is queued again. */
        private CompletableFuture<Void> send(List<Part> group) {
            Part first = group.get(0);
            CompletableFuture<MultiAnswer> sent;
            if (group.size() == 1) {
                sent = first.sender.send(first.name, first.ops);
            } else {
                sent = first.sender.send("Multi", MergedAnswers.merged(group));
            }
            return sent.handle((answer, failure) -> {
                if (failure == null && !atomic) {
                    sizes.learn(MergedAnswers.merged(group), answer);
                }
                if (failure != null) {
                    if (!atomic
                            && group.size() > 1
                            && Answers.cause(failure) instanceof KeeperException.ConnectionLossException) {
                        sizes.suspect(MergedAnswers.merged(group));
                    }
                    group.forEach(part -> part.answer.completeExceptionally(failure));
                } else if (group.size() == 1) {
                    first.answer.complete(answer);
                } else {
                    answer(group, answer);
                }
                return null;
            });
        }

        /** Hands each part its share of the merged answer, and queues again first what a refusal left unanswered. */
        private void answer(List<Part> group, MultiAnswer answer) {
            List<List<Part>> again = MergedAnswers.share(group, answer, atomic);
            synchronized (this) {
                for (int i = again.size() - 1; i >= 0; i--) {
                    this.again.addFirst(again.get(i));
                }
            }
        }
    }

    /** About what the operations add to a request: their paths and data, and a little for the rest. */
    static long bytes(List<Op> ops) {
        long bytes = 0;
        for (Op op : ops) {
            bytes += 48 + op.getPath().length();
            if (op.toRequestRecord() instanceof CreateRequest create) {
                bytes += create.getData() == null ? 0 : create.getData().length;
                bytes += 40L * (create.getAcl() == null ? 0 : create.getAcl().size());
            } else if (op.toRequestRecord() instanceof SetDataRequest set) {
                bytes += set.getData() == null ? 0 : set.getData().length;
            }
        }
        return bytes;
    }
}
