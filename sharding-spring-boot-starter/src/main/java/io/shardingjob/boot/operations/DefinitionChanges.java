package io.shardingjob.boot.operations;

import io.shardingjob.boot.ShardedJobRegistry;
import io.shardingjob.boot.operations.OperatorAction.MissingInputException;
import io.shardingjob.boot.operations.OperatorAction.Performed;
import io.shardingjob.core.config.JobConfiguration;
import org.jspecify.annotations.Nullable;

/**
 * The actions on a job's stored definition ({@link OperatorAction.Target#DEFINITION}): they need no coordinator of the
 * job here, only the {@link ShardedJobRegistry} of the jobs defined at run time, which checks what they store.
 */
final class DefinitionChanges {

    private DefinitionChanges() {}

    /**
     * @param registry the jobs defined at run time, null when the application has none: every action is then refused
     */
    static Performed perform(OperatorAction action, OperatorRequest request, @Nullable ShardedJobRegistry registry) {
        if (registry == null) {
            throw new MissingInputException("jobs cannot be defined at run time in this application");
        }
        return switch (action) {
            case DEFINE -> define(request, registry);
            case CRON -> cron(request, registry);
            case ITEMS -> items(request, registry);
            case REMOVE -> {
                registry.remove(request.job());
                yield new Performed("removal started: every instance stops the job, then its state goes", null);
            }
            default -> throw new IllegalArgumentException(action.actionName() + " is not an action on a definition");
        };
    }

    private static Performed define(OperatorRequest request, ShardedJobRegistry registry) {
        String handler = request.handler();
        if (handler == null) {
            throw new MissingInputException("give a handler (and a cron, or none for a job on demand)");
        }
        // No cron: a job on demand, which fires only when triggered.
        registry.define(
                JobConfiguration.builder(request.job())
                        .cron(request.cron())
                        .shardingTotalCount(request.count() == null ? 1 : request.count())
                        .shardingItemParameters(parameters(request))
                        .build(),
                handler);
        return new Performed("defined with handler '" + handler + "'", null);
    }

    private static Performed cron(OperatorRequest request, ShardedJobRegistry registry) {
        String cron = request.cron();
        if (cron == null || cron.isBlank()) {
            throw new MissingInputException("give a cron, or '-' for a job that fires only when triggered");
        }
        JobConfiguration changed = registry.updateCron(request.job(), cron);
        return new Performed(
                changed.isOnDemand() ? "cron - (on demand: fires only when triggered)" : "cron " + changed.cron(),
                null);
    }

    private static Performed items(OperatorRequest request, ShardedJobRegistry registry) {
        Integer count = request.count();
        if (count == null) {
            throw new MissingInputException("give a count, and parameters if the items have any");
        }
        int stored =
                registry.updateItems(request.job(), count, parameters(request)).shardingTotalCount();
        return new Performed(stored + " items", null);
    }

    private static String parameters(OperatorRequest request) {
        return request.parameters() == null ? "" : request.parameters();
    }
}
