package io.shardingjob.boot.actuate;

import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.OperationArgumentResolver;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvoker;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameter;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameters;

/**
 * Gives an operation that declares an {@link UnboundFields} parameter the fields of its request that no parameter
 * binds.
 *
 * <p>Boot's web endpoints put a request's path variables, JSON body and query parameters into one map of arguments
 * and bind each parameter of the operation by its name, so a field that names no parameter is dropped without a word;
 * an operation cannot declare the whole body. An {@link OperationInvokerAdvisor} sees that map before the operation is
 * invoked: this one hands the operation the names no parameter takes, through one more argument resolver, as Boot
 * resolves a {@link SecurityContext} parameter. Other operations are left as they are.
 */
public final class UnboundFieldsAdvisor implements OperationInvokerAdvisor {

    @Override
    public OperationInvoker apply(
            EndpointId endpointId,
            OperationType operationType,
            OperationParameters parameters,
            OperationInvoker invoker) {
        if (parameters.stream().noneMatch(parameter -> parameter.getType() == UnboundFields.class)) {
            return invoker;
        }
        return context -> invoker.invoke(withUnboundFields(context, unbound(context, parameters)));
    }

    /**
     * The arguments with a value that no parameter binds by its name; a parameter resolved by its type (a
     * {@link SecurityContext}, these fields) binds none, so a field of its name is unbound too.
     */
    private static UnboundFields unbound(InvocationContext context, OperationParameters parameters) {
        Set<String> bound = parameters.stream()
                .filter(parameter ->
                        parameter.getType() != UnboundFields.class && !context.canResolve(parameter.getType()))
                .map(OperationParameter::getName)
                .collect(Collectors.toSet());
        return new UnboundFields(context.getArguments().entrySet().stream()
                .filter(argument -> argument.getValue() != null && !bound.contains(argument.getKey()))
                .map(Map.Entry::getKey)
                .collect(Collectors.toSet()));
    }

    /** The same invocation, able to resolve {@link UnboundFields} too; everything else resolves as it did. */
    private static InvocationContext withUnboundFields(InvocationContext context, UnboundFields unbound) {
        OperationArgumentResolver asBefore = new OperationArgumentResolver() {

            @Override
            public boolean canResolve(Class<?> type) {
                return context.canResolve(type);
            }

            @Override
            public <T> @Nullable T resolve(Class<T> type) {
                return context.resolveArgument(type);
            }
        };
        SecurityContext securityContext = context.resolveArgument(SecurityContext.class);
        return new InvocationContext(
                securityContext == null ? SecurityContext.NONE : securityContext,
                context.getArguments(),
                OperationArgumentResolver.of(UnboundFields.class, () -> unbound),
                asBefore);
    }
}
