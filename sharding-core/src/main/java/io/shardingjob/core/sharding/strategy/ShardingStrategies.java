package io.shardingjob.core.sharding.strategy;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;

/**
 * The strategies a job configuration can name. It is immutable so that one registry can be shared by every job and
 * thread without locking; {@link #with(ShardingStrategy...)} returns a new one. Two different classes claiming one
 * name is refused outright, because silently preferring either would make a job's sharding depend on classpath order.
 */
public final class ShardingStrategies {

    /** The strategy used when a job names none. */
    public static final String DEFAULT = AverageAllocationStrategy.NAME;

    private final Map<String, ShardingStrategy> byName;

    private ShardingStrategies(Map<String, ShardingStrategy> byName) {
        this.byName = Collections.unmodifiableMap(new TreeMap<>(byName));
    }

    /** Only the four built-in strategies, whatever the classpath holds. */
    public static ShardingStrategies builtIns() {
        return new ShardingStrategies(Map.of())
                .with(
                        new AverageAllocationStrategy(),
                        new OdevityByNameHashStrategy(),
                        new RotateByNameHashStrategy(),
                        new StickyStrategy());
    }

    /** The built-ins plus every strategy registered with {@link ServiceLoader}. */
    public static ShardingStrategies defaults() {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        if (loader == null) {
            loader = ShardingStrategies.class.getClassLoader();
        }
        return builtIns()
                .with(ServiceLoader.load(ShardingStrategy.class, loader).stream()
                        .map(ServiceLoader.Provider::get)
                        .toArray(ShardingStrategy[]::new));
    }

    /**
     * A registry with {@code more} added. Registering a strategy of a class already registered under the same name is
     * a no-op, so a service file that repeats a built-in does no harm.
     *
     * @throws IllegalArgumentException if a name is blank or already taken by a different class
     */
    public ShardingStrategies with(ShardingStrategy... more) {
        Map<String, ShardingStrategy> merged = new TreeMap<>(byName);
        for (ShardingStrategy strategy : more) {
            Objects.requireNonNull(strategy, "strategy");
            String name = strategy.name() == null ? "" : strategy.name().trim();
            if (name.isEmpty()) {
                throw new IllegalArgumentException(
                        "Sharding strategy " + strategy.getClass().getName() + " has a blank name");
            }
            ShardingStrategy existing = merged.putIfAbsent(name, strategy);
            if (existing != null && existing.getClass() != strategy.getClass()) {
                throw new IllegalArgumentException("Sharding strategy name '" + name + "' is claimed by both "
                        + existing.getClass().getName() + " and "
                        + strategy.getClass().getName());
            }
        }
        return new ShardingStrategies(merged);
    }

    public Optional<ShardingStrategy> find(String name) {
        return name == null ? Optional.empty() : Optional.ofNullable(byName.get(name.trim()));
    }

    /** @throws IllegalArgumentException naming the known strategies if {@code name} is not one of them */
    public ShardingStrategy get(String name) {
        return find(name)
                .orElseThrow(() -> new IllegalArgumentException(
                        "Unknown sharding strategy '" + name + "'; known strategies: " + names()));
    }

    /** The registered names, sorted. */
    public Set<String> names() {
        return byName.keySet();
    }

    @Override
    public String toString() {
        return "ShardingStrategies" + names();
    }
}
