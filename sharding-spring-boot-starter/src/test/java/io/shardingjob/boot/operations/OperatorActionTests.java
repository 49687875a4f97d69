package io.shardingjob.boot.operations;

import static io.shardingjob.boot.operations.OperatorAction.Target.DEFINITION;
import static io.shardingjob.boot.operations.OperatorAction.Target.INSTANCE;
import static io.shardingjob.boot.operations.OperatorAction.Target.ITEM;
import static io.shardingjob.boot.operations.OperatorAction.Target.JOB;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.boot.operations.OperatorAction.Target;
import java.util.Arrays;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The operator actions' names, targets and words, as the endpoint and the console read them. */
class OperatorActionTests {

    private static final Set<Target> ENDPOINT_JOB_PATH = Set.of(JOB, DEFINITION);

    private static final Set<Target> CONSOLE = Set.of(JOB, ITEM, INSTANCE);

    @ParameterizedTest(name = "{0} is {1} on a {2}, named {3}")
    @CsvSource({
        "TRIGGER,          trigger, JOB,        trigger",
        "RERUN,            rerun,   JOB,        rerun",
        "RESHARD,          reshard, JOB,        reshard",
        "DISABLE_JOB,      disable, JOB,        disable-job",
        "ENABLE_JOB,       enable,  JOB,        enable-job",
        "DISABLE_ITEM,     disable, ITEM,       disable-item",
        "ENABLE_ITEM,      enable,  ITEM,       enable-item",
        "DISABLE_INSTANCE, disable, INSTANCE,   disable-instance",
        "ENABLE_INSTANCE,  enable,  INSTANCE,   enable-instance",
        "DEFINE,           define,  DEFINITION, define",
        "CRON,             cron,    DEFINITION, cron",
        "ITEMS,            items,   DEFINITION, items",
        "REMOVE,           remove,  DEFINITION, remove"
    })
    void eachActionHasOneVerbOneTargetAndTheNameTheConsoleAndTheAuditHaveAlwaysUsed(
            OperatorAction action, String verb, Target target, String name) {
        assertThat(action.verb()).isEqualTo(verb);
        assertThat(action.target()).isEqualTo(target);
        assertThat(action.actionName()).isEqualTo(name);
        assertThat(OperatorAction.parse(name, Set.of(target))).contains(action);
    }

    @Test
    void theActionsAreExactlyTheThirteenOfTheTable() {
        assertThat(Arrays.stream(OperatorAction.values()).map(OperatorAction::actionName))
                .containsExactly(
                        "trigger",
                        "rerun",
                        "reshard",
                        "disable-job",
                        "enable-job",
                        "disable-item",
                        "enable-item",
                        "disable-instance",
                        "enable-instance",
                        "define",
                        "cron",
                        "items",
                        "remove");
    }

    @ParameterizedTest(name = "the endpoint reads {0} on {1} as {2}")
    @CsvSource({
        "trigger,     JOB,      TRIGGER",
        "Disable,     JOB,      DISABLE_JOB",
        "ENABLE,      JOB,      ENABLE_JOB",
        "disable-job, JOB,      DISABLE_JOB",
        "cron,        JOB,      CRON",
        "disable,     ITEM,     DISABLE_ITEM",
        "enable,      ITEM,     ENABLE_ITEM",
        "disable,     INSTANCE, DISABLE_INSTANCE",
    })
    void theEndpointReadsItsVerbsAndTheNamesForTheTargetOfItsPath(String asked, Target path, OperatorAction action) {
        Set<Target> targets = path == JOB ? ENDPOINT_JOB_PATH : Set.of(path);
        assertThat(OperatorAction.parse(asked, targets)).contains(action);
    }

    @Test
    void aVerbSharedByTwoTargetsOfThePlaceNamesNeitherAndAnActionOfAnotherTargetIsUnknown() {
        assertThat(OperatorAction.parse("disable", CONSOLE)).isEmpty();
        assertThat(OperatorAction.parse("disable-item", CONSOLE)).contains(OperatorAction.DISABLE_ITEM);
        assertThat(OperatorAction.parse("cron", CONSOLE)).isEmpty();
        assertThat(OperatorAction.parse("trigger", Set.of(ITEM))).isEmpty();
        assertThat(OperatorAction.parse("disable-item", ENDPOINT_JOB_PATH)).isEmpty();
        assertThat(OperatorAction.parse("explode", ENDPOINT_JOB_PATH)).isEmpty();
    }

    @Test
    void anUnknownActionIsRefusedWithTheWordsThePlaceTakes() {
        assertThat(OperatorAction.unknown("explode", ENDPOINT_JOB_PATH))
                .isEqualTo("unknown action 'explode'; use trigger, rerun, reshard, disable, enable, define, cron,"
                        + " items or remove");
        assertThat(OperatorAction.unknown("explode", Set.of(ITEM)))
                .isEqualTo("unknown action 'explode'; use disable or enable");
        assertThat(OperatorAction.unknown("explode", CONSOLE))
                .isEqualTo(
                        "unknown action 'explode'; use trigger, rerun, reshard, disable-job, enable-job, disable-item,"
                                + " enable-item, disable-instance or enable-instance");
        assertThat(OperatorAction.unknown("x".repeat(1000), CONSOLE)).hasSizeLessThan(250);
    }

    @Test
    void theAuditNamesTheTargetAsTheConsoleAlwaysHas() {
        OperatorRequest item = OperatorRequest.ofItem("orderSync", "disable", "2");
        OperatorRequest instance = OperatorRequest.ofInstance("orderSync", "disable", "pod-1");
        OperatorRequest job = OperatorRequest.ofJob("orderSync", "cron", null, "0 0 2 * * *", null, null, null);
        assertThat(OperatorAction.DISABLE_ITEM.targetOf(item)).isEqualTo("item/2");
        assertThat(OperatorAction.DISABLE_INSTANCE.targetOf(instance)).isEqualTo("instance/pod-1");
        assertThat(OperatorAction.CRON.targetOf(job)).isEqualTo("job");
        assertThat(OperatorAction.TRIGGER.targetOf(job)).isEqualTo("job");
    }
}
