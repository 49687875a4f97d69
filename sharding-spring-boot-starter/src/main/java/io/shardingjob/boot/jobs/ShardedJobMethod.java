package io.shardingjob.boot.jobs;

import io.shardingjob.boot.ShardedJob;
import io.shardingjob.core.execution.ItemExecutor;
import io.shardingjob.core.execution.ShardingContext;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.springframework.aop.support.AopUtils;
import org.springframework.util.ReflectionUtils;

/**
 * A {@code @ShardedJob} method found on a bean, with the job name already resolved.
 *
 * @param jobName the job name, placeholders resolved
 * @param beanName the name of the bean declaring it
 * @param bean the bean as the container holds it, possibly a proxy: calls go through it so that advice applies
 * @param method the annotated method, invocable on {@code bean}
 * @param annotation the merged annotation
 */
public record ShardedJobMethod(String jobName, String beanName, Object bean, Method method, ShardedJob annotation) {

    /**
     * Checks the signature and picks the method to call on the (possibly proxied) bean.
     *
     * @throws ShardedJobConfigurationException naming the method when it cannot be a job
     */
    public static ShardedJobMethod of(
            String jobName, String beanName, Object bean, Method method, ShardedJob annotation) {
        Class<?>[] parameters = method.getParameterTypes();
        boolean parametersFit =
                parameters.length == 0 || (parameters.length == 1 && parameters[0] == ShardingContext.class);
        if (!parametersFit || method.getReturnType() != void.class) {
            throw wrongSignature(
                    jobName, method, "must take a single ShardingContext parameter or none, and return void", null);
        }
        Method invocable;
        try {
            invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
        } catch (IllegalStateException ex) {
            throw wrongSignature(jobName, method, "cannot be called through the bean's proxy", ex);
        }
        ReflectionUtils.makeAccessible(invocable);
        return new ShardedJobMethod(jobName, beanName, bean, invocable, annotation);
    }

    /** The same job called through another object for the bean: the one the container finally exposes. */
    ShardedJobMethod calledThrough(Object exposed) {
        return exposed == bean ? this : of(jobName, beanName, exposed, method, annotation);
    }

    /** Where the job is declared, for messages: {@code com.example.Jobs.sync(ShardingContext)}. */
    public String describe() {
        return describe(method);
    }

    public static String describe(Method method) {
        return method.getDeclaringClass().getName() + "." + method.getName()
                + Arrays.stream(method.getParameterTypes())
                        .map(Class::getSimpleName)
                        .collect(Collectors.joining(", ", "(", ")"));
    }

    /** Calls the method for one item; the method's own exception is what the item failed with. */
    ItemExecutor invoker() {
        boolean takesContext = method.getParameterCount() == 1;
        return context -> {
            try {
                if (takesContext) {
                    method.invoke(bean, context);
                } else {
                    method.invoke(bean);
                }
            } catch (InvocationTargetException ex) {
                Throwable failure = ex.getTargetException();
                if (failure instanceof Exception exception) {
                    throw exception;
                }
                throw (Error) failure;
            }
        };
    }

    private static ShardedJobConfigurationException wrongSignature(
            String jobName, Method method, String problem, Throwable cause) {
        String described = describe(method);
        return new ShardedJobConfigurationException(
                jobName,
                described,
                "method " + described + " " + problem,
                "Declare the job method as 'void " + method.getName() + "(ShardingContext context)' or 'void "
                        + method.getName() + "()', not private when the bean is proxied.",
                cause);
    }
}
