package io.shardingjob.core.internal.requests;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.Op;

/**
 * Reads of nodes that grow with a job's items, sized from their records ({@link SizeRecord}): the records first, with
 * whether each node is there, a few dozen bytes each and merged with the client's other reads, then the reads, each of
 * those nodes reckoned at what its record says (a node not there, at nothing): for the reads that start a job or a
 * reshard, which know nothing of the nodes yet; the registry cache, which holds the records, sizes its reads itself.
 *
 * <p>Race window: a node written again between its record's read and its own, larger, answers more than its record
 * said. Merged with others near a whole answer, that answer may drop the connection; its reads are then sent again
 * alone ({@link ClientMultis}), each within one answer.
 */
final class RecordedReads {

    private RecordedReads() {}

    static CompletableFuture<MultiAnswer> send(
            ClientMultis multis,
            ClientMultis.Sender through,
            String name,
            List<Op> reads,
            long unknownListingBytes,
            long dataBytes,
            Map<String, String> recordOf) {
        AnswerSizes.Bounds unsized = new AnswerSizes.Bounds(unknownListingBytes, dataBytes, Map.of());
        if (recordOf.isEmpty()) {
            return multis.send(new ClientMultis.Part(through, name, reads, unsized));
        }
        List<String> nodes = new ArrayList<>(recordOf.keySet());
        List<Op> records = new ArrayList<>();
        for (String node : nodes) {
            records.add(Op.getData(recordOf.get(node)));
            // Whether the node is there at all, for a few bytes: a missing one (a job's first start) answers nothing.
            records.add(Op.getChildren(node));
        }
        return multis.send(new ClientMultis.Part(through, name, records, unsized))
                .thenCompose(answer -> {
                    Map<String, Long> sized = new HashMap<>();
                    for (int i = 0; i < nodes.size(); i++) {
                        sized.put(
                                nodes.get(i),
                                MultiAnswer.isMissing(answer.results().get(2 * i + 1))
                                        ? AnswerSizes.STAT_BYTES
                                        : SizeRecord.answerBytes(
                                                answer.results().get(2 * i)));
                    }
                    return multis.send(new ClientMultis.Part(
                            through, name, reads, new AnswerSizes.Bounds(unknownListingBytes, dataBytes, sized)));
                });
    }
}
