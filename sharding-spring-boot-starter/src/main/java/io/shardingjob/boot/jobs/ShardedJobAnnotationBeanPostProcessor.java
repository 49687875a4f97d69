package io.shardingjob.boot.jobs;

import io.shardingjob.boot.ShardedJob;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.DestructionAwareBeanPostProcessor;
import org.springframework.beans.factory.config.SingletonBeanRegistry;
import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.StringValueResolver;

/**
 * Finds {@code @ShardedJob} methods the way Spring finds {@code @Scheduled} ones: on the target class behind any proxy,
 * including interface and superclass declarations. It only collects them; {@link ShardedJobLifecycle} configures and
 * starts them once the whole context is ready, so that every bean they need exists. Beans created after that (lazy
 * ones) are handed over as they appear; a destroyed bean's jobs are stopped.
 *
 * <p>Jobs are called through the object the container finally exposes for the bean, looked up when they start, so that
 * advice added by post-processors running after this one (proxies) applies too.
 */
public final class ShardedJobAnnotationBeanPostProcessor
        implements DestructionAwareBeanPostProcessor, EmbeddedValueResolverAware, BeanFactoryAware, Ordered {

    private final List<ShardedJobMethod> discovered = new ArrayList<>();

    private final Set<Class<?>> classesWithoutJobs = ConcurrentHashMap.newKeySet();

    private @Nullable StringValueResolver placeholders;

    private @Nullable JobRegistrar registrar;

    private @Nullable SingletonBeanRegistry singletons;

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.singletons = beanFactory instanceof SingletonBeanRegistry registry ? registry : null;
    }

    @Override
    public void setEmbeddedValueResolver(StringValueResolver resolver) {
        this.placeholders = resolver;
    }

    @Override
    public int getOrder() {
        return LOWEST_PRECEDENCE;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof AopInfrastructureBean) {
            return bean;
        }
        Class<?> targetClass = AopUtils.getTargetClass(bean);
        if (classesWithoutJobs.contains(targetClass)
                || !AnnotationUtils.isCandidateClass(targetClass, ShardedJob.class)) {
            return bean;
        }
        Map<Method, ShardedJob> annotated =
                MethodIntrospector.selectMethods(targetClass, (MethodIntrospector.MetadataLookup<ShardedJob>)
                        method -> AnnotatedElementUtils.findMergedAnnotation(method, ShardedJob.class));
        if (annotated.isEmpty()) {
            classesWithoutJobs.add(targetClass);
            return bean;
        }
        List<ShardedJobMethod> jobs = new ArrayList<>();
        annotated.forEach((method, annotation) ->
                jobs.add(ShardedJobMethod.of(resolve(annotation.name()), beanName, bean, method, annotation)));
        add(jobs);
        return bean;
    }

    @Override
    public boolean requiresDestruction(Object bean) {
        synchronized (discovered) {
            return discovered.stream().anyMatch(job -> job.bean() == bean);
        }
    }

    @Override
    public void postProcessBeforeDestruction(Object bean, String beanName) {
        List<ShardedJobMethod> removed = new ArrayList<>();
        JobRegistrar current;
        synchronized (discovered) {
            discovered.removeIf(job -> job.beanName().equals(beanName) && removed.add(job));
            current = registrar;
        }
        if (current != null) {
            removed.forEach(current::removed);
        }
    }

    /** Resolves {@code ${...}} placeholders in an annotation attribute. */
    public String resolve(String value) {
        String resolved = placeholders == null ? value : placeholders.resolveStringValue(value);
        return resolved == null ? "" : resolved;
    }

    /**
     * Hands every job found so far to the registrar, and the ones found later as they appear.
     *
     * @return the jobs found so far
     */
    public List<ShardedJobMethod> attach(JobRegistrar registrar) {
        synchronized (discovered) {
            this.registrar = registrar;
            return discovered.stream().map(this::exposed).toList();
        }
    }

    private ShardedJobMethod exposed(ShardedJobMethod job) {
        Object exposed = singletons == null ? null : singletons.getSingleton(job.beanName());
        return exposed == null ? job : job.calledThrough(exposed);
    }

    public void detach() {
        synchronized (discovered) {
            this.registrar = null;
        }
    }

    private void add(List<ShardedJobMethod> jobs) {
        JobRegistrar late;
        synchronized (discovered) {
            discovered.addAll(jobs);
            late = registrar;
        }
        if (late != null) {
            try {
                late.added(jobs);
            } catch (RuntimeException refused) {
                // The bean fails to be created: none of its jobs runs, and none is handed over at a later attach.
                synchronized (discovered) {
                    discovered.removeAll(jobs);
                }
                throw refused;
            }
        }
    }

    /** Receives the jobs of beans created or destroyed while the jobs run. */
    public interface JobRegistrar {

        /** The jobs of one bean created while the jobs run (a lazy one), checked and started together. */
        void added(List<ShardedJobMethod> jobs);

        void removed(ShardedJobMethod job);
    }
}
