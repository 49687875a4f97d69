package io.shardingjob.boot.actuate;

import java.util.Set;

/**
 * The fields of a request to an endpoint's operation that none of the operation's parameters binds: those of a JSON
 * body, a query or a path that Boot's web endpoints ignore. An operation declares a parameter of this type to see
 * them; {@link UnboundFieldsAdvisor} resolves it. The {@code sharding} endpoint's writes refuse them, so that an
 * operator's typo ({@code {"action": "disable", "itme": 2}}) is not performed as if it were not there.
 *
 * @param names the fields' names, those with a value ({@code null} in JSON is no value)
 */
public record UnboundFields(Set<String> names) {

    public UnboundFields {
        names = Set.copyOf(names);
    }
}
