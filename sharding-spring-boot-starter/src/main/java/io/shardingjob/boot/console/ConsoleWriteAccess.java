package io.shardingjob.boot.console;

/**
 * Whether the console may offer and perform operations at all. The auto-configuration asks Boot's
 * {@code EndpointAccessResolver} about the {@code sharding} endpoint, so that the console and the endpoint follow one
 * setting ({@code management.endpoint.sharding.access=unrestricted}); without Actuator the console is read-only.
 */
@FunctionalInterface
public interface ConsoleWriteAccess {

    /** Whether operations are allowed now; asked on every page and every operation. */
    boolean writesAllowed();

    /** No operations, ever. */
    static ConsoleWriteAccess readOnly() {
        return () -> false;
    }
}
