package io.shardingjob.boot.operations;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The fields each action takes, as a table, and the words of a refusal; an instance the job does not know is tested
 * over HTTP, on a real job ({@code ShardingEndpointHttpTests}, {@code ShardingConsoleOperationsTests}).
 */
class RequestChecksTests {

    @ParameterizedTest(name = "{0} takes {1}")
    @CsvSource({
        "TRIGGER,          jobParameter",
        "RERUN,            fireTime",
        "RESHARD,          ''",
        "DISABLE_JOB,      ''",
        "ENABLE_JOB,       ''",
        "DISABLE_ITEM,     item",
        "ENABLE_ITEM,      item",
        "DISABLE_INSTANCE, instance",
        "ENABLE_INSTANCE,  instance",
        "DEFINE,           count cron handler parameters",
        "CRON,             cron",
        "ITEMS,            count parameters",
        "REMOVE,           ''"
    })
    void eachActionTakesItsOwnFieldsAndNoOther(OperatorAction action, String fields) {
        OperatorRequest every = new OperatorRequest(
                "orderSync", action.verb(), "1", "pod-1", "p", "0 0 2 * * *", 2, "0=eu", "export", "0", Set.of("itme"));
        List<String> takes = fields.isEmpty() ? List.of() : List.of(fields.split(" "));

        List<String> carried = List.of(
                "count", "cron", "fireTime", "handler", "instance", "item", "itme", "jobParameter", "parameters");

        assertThat(every.fields()).containsExactlyElementsOf(carried);
        assertThat(RequestChecks.fieldsNotTaken(action, every))
                .isEqualTo(
                        carried.stream().filter(field -> !takes.contains(field)).toList());
    }

    @Test
    void aFieldNotTakenIsRefusedNamingTheActionWhatItTakesAndTheActionThatTakesIt() {
        OperatorRequest item = OperatorRequest.ofJob("orderSync", "disable", null, null, null, null, null)
                .withOtherFields(Set.of("item"));

        assertThat(RequestChecks.notTaken(
                        OperatorAction.DISABLE_JOB,
                        "orderSync",
                        RequestChecks.fieldsNotTaken(OperatorAction.DISABLE_JOB, item)))
                .isEqualTo("Job 'orderSync': disable-job does not take 'item' (it takes no field but the action;"
                        + " disable-item takes item): nothing was changed");
        assertThat(RequestChecks.notTaken(
                        OperatorAction.TRIGGER, "orderSync", List.of("a", "b", "c", "d", "e", "f", "g")))
                .isEqualTo("Job 'orderSync': trigger does not take 'a', 'b', 'c', 'd', 'e' and 2 more (it takes"
                        + " jobParameter): nothing was changed");
    }
}
