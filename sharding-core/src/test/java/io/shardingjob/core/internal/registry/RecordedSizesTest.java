package io.shardingjob.core.internal.registry;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.core.internal.requests.SizeRecord;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;

/** What a job cache's reads of the nodes that grow with the job's items are reckoned at, from their size records. */
class RecordedSizesTest {

    private final JobNodes job = new JobNodes("report");

    private final CachedNodes nodes = new CachedNodes(Runnable::run);

    private final RecordedSizes sizes = new RecordedSizes(job, nodes);

    private final String config = job.config();

    private final String record = job.size(config);

    @Test
    void aNodeIsReckonedAtItsRecordAndASmallNodeByItsKin() {
        cache(record, 7, SizeRecord.of(new byte[300_000]));

        assertThat(sizes.answerBytes(config))
                .hasValueSatisfying(bytes -> assertThat(bytes).isBetween(300_000L, 301_000L));
        assertThat(sizes.answerBytes(job.instance("a"))).as("a small node").isEmpty();
    }

    @Test
    void aNodeWithoutARecordOrWithAnEmptyOneIsReadAlone() {
        assertThat(sizes.answerBytes(config)).hasValue(SizeRecord.UNRECORDED);

        cache(record, 7, new byte[0]);
        assertThat(sizes.answerBytes(config)).hasValue(SizeRecord.UNRECORDED);
    }

    @Test
    void aNodeWrittenByHandAfterItsRecordIsReadAloneUntilWrittenWithItAgain() {
        cache(record, 7, SizeRecord.of(new byte[100]));

        assertThat(sizes.awaitsRecord(config, 9))
                .as("no record written with it: read now")
                .isFalse();
        assertThat(sizes.answerBytes(config)).hasValue(SizeRecord.UNRECORDED);

        sizes.recordChanged(record, 12);
        assertThat(sizes.awaitsRecord(config, 12))
                .as("written with its record: read once the record is")
                .isTrue();
        cache(record, 12, SizeRecord.of(new byte[200]));
        assertThat(sizes.recordRead(record)).isEqualTo(config);
        assertThat(sizes.answerBytes(config))
                .hasValueSatisfying(bytes -> assertThat(bytes).isLessThan(1024L));
    }

    @Test
    void aNodeWhoseRecordOfTheSameWriteIsReadAlreadyIsReadAtOnce() {
        sizes.recordChanged(record, 12);
        cache(record, 12, SizeRecord.of(new byte[200]));

        assertThat(sizes.awaitsRecord(config, 12)).isFalse();
        assertThat(sizes.recordRead(record)).as("nothing waits").isNull();
        assertThat(sizes.answerBytes(config))
                .hasValueSatisfying(bytes -> assertThat(bytes).isLessThan(1024L));
    }

    private void cache(String path, long mzxid, byte[] data) {
        Stat stat = new Stat();
        stat.setMzxid(mzxid);
        nodes.put(new ChildData(path, stat, data), mzxid);
    }
}
