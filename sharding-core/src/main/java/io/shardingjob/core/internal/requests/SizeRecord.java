package io.shardingjob.core.internal.requests;

import java.nio.charset.StandardCharsets;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.Op;
import org.jspecify.annotations.Nullable;

/**
 * How large a node is that grows with a job's items (its configuration, schedule history, assignment), recorded in a
 * small node of its own: the length of its data in decimal. Every writer of such a node writes its record in the same
 * multi-operation, before it, so that the two never disagree, and a merged read of the node is sized from its record,
 * read first ({@link ClientRequests#readRecordedAsync}) or cached, never by an estimate: reckoned at 64 kB, several
 * configurations near their 512 KiB limit went together after a restart, and their answer, more than a client takes in
 * one, dropped the connection of every job of the client. A node without a record, or whose record is empty (written by
 * an older version, or by hand), is reckoned at a whole answer ({@link #UNRECORDED}): its read goes alone.
 */
public final class SizeRecord {

    /** What a read of a node without a record is reckoned at: a whole answer, so that it goes alone. */
    public static final long UNRECORDED = ClientMultis.MAX_READ_ANSWER_BYTES;

    private SizeRecord() {}

    public static byte[] of(byte[] data) {
        return Integer.toString(data.length).getBytes(StandardCharsets.US_ASCII);
    }

    /** The record's write for a multi of the client's merged ones: put before the node's own write. */
    public static Op writeOp(ClientRequests requests, String record, byte[] data) {
        return Op.setData(requests.full(record), of(data), -1);
    }

    /** The record's write for a Curator transaction: put before the node's own write. */
    public static CuratorOp write(CuratorFramework client, String record, byte[] data) throws Exception {
        return client.transactionOp().setData().forPath(record, of(data));
    }

    /**
     * What reading the node answers, by its record as read: its data and its stat; {@link #UNRECORDED} when the
     * record is missing, empty or unreadable.
     */
    public static long answerBytes(byte @Nullable [] record) {
        if (record == null || record.length == 0) {
            return UNRECORDED;
        }
        try {
            return Long.parseLong(new String(record, StandardCharsets.US_ASCII).trim()) + AnswerSizes.STAT_BYTES;
        } catch (NumberFormatException written) {
            return UNRECORDED;
        }
    }
}
