package io.shardingjob.boot.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.boot.console.GraphLayout.Arrow;
import io.shardingjob.boot.console.GraphLayout.Box;
import io.shardingjob.boot.console.GraphLayout.Job;
import io.shardingjob.boot.console.GraphLayout.Picture;
import io.shardingjob.core.config.FollowOn;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Where the graph of jobs puts each job and each arrow. */
class GraphLayoutTests {

    /** Jobs written as {@code b<a+c}: b follows a and c; a job that follows none is its name alone. */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            a                  | a=0
            a b<a c<b          | a=0 b=1 c=2
            a b c<a+b          | a=0 b=0 c=1
            a b<a c<a+b        | a=0 b=1 c=2
            a b<a c<a d<b+c    | a=0 b=1 c=1 d=2
            x<ghost            | ghost=0 x=1
            a<b b<a c<a        | a=1 b=0 c=2
            """)
    void putsAJobOneLayerRightOfTheDeepestJobItFollows(String jobs, String layers) {
        assertThat(GraphLayout.layers(byName(jobs))).isEqualTo(expected(layers));
    }

    @Test
    void drawsAnArrowFromEachUpstreamToEachFollowerLabelledWithOnAndItemWise() {
        Picture picture = GraphLayout.of(List.of(
                job("settle", List.of(), FollowOn.SUCCESS, false),
                job("bill", List.of(), FollowOn.SUCCESS, false),
                job("export", List.of("settle", "bill"), FollowOn.COMPLETION, false),
                job("archive", List.of("export"), FollowOn.SUCCESS, true)));

        assertThat(picture.arrows())
                .extracting(arrow -> arrow.from() + "->" + arrow.to() + " " + arrow.label())
                .containsExactlyInAnyOrder(
                        "bill->export completion", "settle->export completion", "export->archive success, item-wise");
        Box settle = picture.box("settle");
        Box export = picture.box("export");
        Arrow fromSettle = picture.arrows().stream()
                .filter(arrow -> arrow.from().equals("settle"))
                .findFirst()
                .orElseThrow();
        assertThat(fromSettle.x1()).isEqualTo(settle.x() + GraphLayout.BOX_WIDTH);
        assertThat(fromSettle.y1()).isEqualTo(settle.y() + GraphLayout.BOX_HEIGHT / 2);
        assertThat(fromSettle.x2()).isEqualTo(export.x());
        assertThat(fromSettle.y2()).isEqualTo(export.y() + GraphLayout.BOX_HEIGHT / 2);
    }

    @Test
    void givesEachLayerAColumnAndKeepsAFollowerInTheRowOfItsUpstream() {
        Picture picture = GraphLayout.of(List.of(
                job("a", List.of(), FollowOn.SUCCESS, false),
                job("b", List.of(), FollowOn.SUCCESS, false),
                job("c", List.of(), FollowOn.SUCCESS, false),
                job("followsC", List.of("c"), FollowOn.SUCCESS, false),
                job("followsA", List.of("a"), FollowOn.SUCCESS, false)));

        assertThat(picture.boxes())
                .extracting(box -> box.job() + "@" + box.layer() + "," + box.row())
                .containsExactly("a@0,0", "b@0,1", "c@0,2", "followsA@1,0", "followsC@1,2");
        assertThat(picture.box("followsC").x())
                .isEqualTo(GraphLayout.MARGIN + GraphLayout.BOX_WIDTH + GraphLayout.COLUMN_GAP);
        assertThat(picture.box("followsC").y()).isEqualTo(picture.box("c").y());
        assertThat(picture.width())
                .isEqualTo(2 * GraphLayout.MARGIN + 2 * GraphLayout.BOX_WIDTH + GraphLayout.COLUMN_GAP);
        assertThat(picture.height())
                .isEqualTo(2 * GraphLayout.MARGIN + 3 * GraphLayout.BOX_HEIGHT + 2 * GraphLayout.ROW_GAP);
    }

    @Test
    void drawsAnUpstreamThatIsNoJobOfTheApplicationAsKnownOnlyByName() {
        Picture picture =
                GraphLayout.of(List.of(new Job("export", List.of("ledgerClose"), FollowOn.SUCCESS, false, true)));

        assertThat(picture.box("ledgerClose").inApplication()).isFalse();
        assertThat(picture.box("export").inApplication()).isTrue();
        assertThat(picture.box("export").onDemand()).isTrue();
        assertThat(picture.arrows()).extracting(Arrow::from).containsExactly("ledgerClose");
    }

    @Test
    void drawsJobsThatFollowNoneSideBySideWithoutArrows() {
        Picture picture = GraphLayout.of(
                List.of(job("b", List.of(), FollowOn.SUCCESS, false), job("a", List.of(), FollowOn.SUCCESS, false)));

        assertThat(picture.boxes()).extracting(Box::job).containsExactly("a", "b");
        assertThat(picture.arrows()).isEmpty();
        assertThat(GraphLayout.of(List.of()).boxes()).isEmpty();
    }

    private static Job job(String name, List<String> after, FollowOn on, boolean itemWise) {
        return new Job(name, after, on, itemWise, false);
    }

    private static Map<String, Job> byName(String jobs) {
        return Arrays.stream(jobs.trim().split("\\s+"))
                .map(spec -> {
                    String[] parts = spec.split("<");
                    List<String> after = parts.length == 1 ? List.of() : List.of(parts[1].split("\\+"));
                    return job(parts[0], after, FollowOn.SUCCESS, false);
                })
                .collect(Collectors.toMap(Job::name, Function.identity()));
    }

    private static Map<String, Integer> expected(String layers) {
        return Arrays.stream(layers.trim().split("\\s+"))
                .map(pair -> pair.split("="))
                .collect(
                        Collectors.toMap(pair -> pair[0], pair -> Integer.valueOf(pair[1]), (a, b) -> b, TreeMap::new));
    }
}
