package io.shardingjob.boot.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Explains a {@code sharding.*} property that prevents start-up: which property, and what to change. */
class InvalidShardingPropertyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidShardingPropertyException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidShardingPropertyException cause) {
        return new FailureAnalysis(cause.getMessage() + "\n\nProperty: " + cause.property(), cause.action(), cause);
    }
}
