package io.shardingjob.core.internal.requests;

import java.util.List;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;

/**
 * The server's answer to a multi-operation: {@code OK} with every operation's result, or the code of the first
 * operation it refused with each operation's error.
 */
public record MultiAnswer(KeeperException.Code code, List<OpResult> results) {

    public boolean ok() {
        return code == KeeperException.Code.OK;
    }

    /** The index of the operation that failed, or -1. */
    public int failedAt() {
        for (int i = 0; i < results.size(); i++) {
            if (results.get(i) instanceof OpResult.ErrorResult error
                    && error.getErr() != KeeperException.Code.OK.intValue()
                    && error.getErr() != KeeperException.Code.RUNTIMEINCONSISTENCY.intValue()) {
                return i;
            }
        }
        return -1;
    }

    /** The code the multi was refused with: its refused operation's, else the request's; OK when it went through. */
    public KeeperException.Code refusal() {
        int failed = failedAt();
        return failed < 0 ? code : errorAt(failed);
    }

    /** The path of the operation of {@code ops} (the multi's, in order) that was refused, else {@code otherwise}. */
    public String refusedPath(List<Op> ops, String otherwise) {
        int failed = failedAt();
        return failed < 0 ? otherwise : ops.get(failed).getPath();
    }

    public KeeperException.Code errorAt(int index) {
        return KeeperException.Code.get(((OpResult.ErrorResult) results.get(index)).getErr());
    }

    /** The code one operation of a multi answered with: {@code OK} for a result that is not an error. */
    public static KeeperException.Code codeOf(OpResult result) {
        return result instanceof OpResult.ErrorResult error
                ? KeeperException.Code.get(error.getErr())
                : KeeperException.Code.OK;
    }

    /** Whether one read of a multi found no node. */
    public static boolean isMissing(OpResult result) {
        return codeOf(result) == KeeperException.Code.NONODE;
    }
}
