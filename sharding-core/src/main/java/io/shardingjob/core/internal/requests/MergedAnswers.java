package io.shardingjob.core.internal.requests;

import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.Op;

/**
 * How a merged request's answer is shared among its parts ({@link ClientMultis}). A multi of reads is not atomic: each
 * part gets its own reads' answers. A multi of writes is: when it is refused, which part's operation failed is known,
 * and only that part's answer is certain when it came first (nothing of another part ran before it); the others are
 * sent again, those before the failed part together, the failed part first of the rest, so that every part gets the
 * answer it would have had sent alone, and each refusal costs at most two more requests.
 */
final class MergedAnswers {

    private MergedAnswers() {}

    /** Completes the parts the answer tells their own answer: the groups to send again, ahead of what was queued. */
    static List<List<ClientMultis.Part>> share(List<ClientMultis.Part> group, MultiAnswer answer, boolean atomic) {
        int failedAt = answer.ok() || !atomic ? -1 : answer.failedAt();
        if (failedAt < 0 && !answer.ok() && atomic) {
            // Refused without naming an operation: no part can be told its answer, so each is asked alone.
            List<List<ClientMultis.Part>> alone = new ArrayList<>();
            group.forEach(part -> alone.add(List.of(part)));
            return alone;
        }
        int refusedPart = partOf(group, failedAt);
        if (refusedPart < 0) {
            int from = 0;
            for (ClientMultis.Part part : group) {
                int to = from + part.ops().size();
                part.answer()
                        .complete(
                                new MultiAnswer(answer.code(), answer.results().subList(from, to)));
                from = to;
            }
            return List.of();
        }
        if (refusedPart == 0) {
            ClientMultis.Part first = group.get(0);
            first.answer()
                    .complete(new MultiAnswer(
                            answer.code(),
                            answer.results().subList(0, first.ops().size())));
            return group.size() == 1 ? List.of() : List.of(List.copyOf(group.subList(1, group.size())));
        }
        return List.of(
                List.copyOf(group.subList(0, refusedPart)), List.copyOf(group.subList(refusedPart, group.size())));
    }

    /** The index of the part whose operations hold the one at {@code failedAt}, or -1. */
    private static int partOf(List<ClientMultis.Part> group, int failedAt) {
        int from = 0;
        for (int i = 0; i < group.size(); i++) {
            int to = from + group.get(i).ops().size();
            if (failedAt >= from && failedAt < to) {
                return i;
            }
            from = to;
        }
        return -1;
    }

    /** The operations of the group's parts, in order: what the merged request sends. */
    static List<Op> merged(List<ClientMultis.Part> group) {
        List<Op> ops = new ArrayList<>();
        group.forEach(part -> ops.addAll(part.ops()));
        return ops;
    }
}
