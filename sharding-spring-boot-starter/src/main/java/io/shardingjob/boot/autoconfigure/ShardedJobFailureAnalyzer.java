package io.shardingjob.boot.autoconfigure;

import io.shardingjob.boot.jobs.ShardedJobConfigurationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains a sharded job that cannot start: which job, which property, and what to change. */
class ShardedJobFailureAnalyzer extends AbstractFailureAnalyzer<ShardedJobConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ShardedJobConfigurationException cause) {
        return new FailureAnalysis(cause.getMessage() + "\n\nProperty: " + cause.property(), cause.action(), cause);
    }
}
