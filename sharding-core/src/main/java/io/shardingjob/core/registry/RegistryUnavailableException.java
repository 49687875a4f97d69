package io.shardingjob.core.registry;

/** ZooKeeper could not be reached, or an operation failed after its retries. */
public final class RegistryUnavailableException extends RuntimeException {

    public RegistryUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }

    public RegistryUnavailableException(String message) {
        super(message);
    }
}
