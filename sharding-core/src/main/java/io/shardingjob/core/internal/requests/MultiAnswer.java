package io.shardingjob.core.internal.requests;

import java.util.List;
import org.apache.zookeeper.KeeperException;
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
