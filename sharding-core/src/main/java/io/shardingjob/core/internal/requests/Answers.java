package io.shardingjob.core.internal.requests;

import java.util.concurrent.CompletionException;

/** What ZooKeeper's answer to a request sent without waiting failed with. */
public final class Answers {

    private Answers() {}

    /** The failure itself, not the {@link CompletionException} a stage of a chain wraps it in. */
    public static Throwable cause(Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}
