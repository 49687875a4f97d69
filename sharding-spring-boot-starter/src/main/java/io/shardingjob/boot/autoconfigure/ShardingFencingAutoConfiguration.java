package io.shardingjob.boot.autoconfigure;

import io.shardingjob.boot.fencing.FencedJdbc;
import io.shardingjob.boot.fencing.FencingTokenExchangeFilter;
import io.shardingjob.boot.fencing.FencingTokenFilter;
import io.shardingjob.boot.fencing.FencingTokenInterceptor;
import io.shardingjob.boot.fencing.JdbcFenceStore;
import io.shardingjob.boot.fencing.ReactiveFencingTokenFilter;
import java.time.Clock;
import java.util.List;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.RestTemplateCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.client.RestClient;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.server.WebFilter;

/**
 * Fenced writes: to the application's database when Spring's JDBC support is present and there is one {@link
 * DataSource} (a {@link FencedJdbc} for updates of the application's rows, a {@link JdbcFenceStore} for the highest
 * token per key; neither touches the database before it is used), and to other services over HTTP: the run's token
 * goes out with the calls of every client built from Boot's builders, and a filter (servlet or WebFlux), when asked
 * for, admits the calls this service takes only with the highest token of their job's item.
 */
// After the DataSource, named rather than referenced, so that Spring Boot's JDBC module stays optional.
@AutoConfiguration(afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnBooleanProperty(name = "sharding.enabled", matchIfMissing = true)
@EnableConfigurationProperties(ShardingProperties.class)
public final class ShardingFencingAutoConfiguration {

    /** A servlet URL pattern: an exact path, a path ending in /*, or an extension (*.json). */
    private static final Pattern URL_PATTERN = Pattern.compile("/[^*]*|/([^*]*/)?\\*|\\*\\.[^*/]+");

    /** The helpers on the application's database. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(JdbcClient.class)
    @ConditionalOnSingleCandidate(DataSource.class)
    static class JdbcFencingConfiguration {

        @Bean
        @ConditionalOnMissingBean
        FencedJdbc shardingFencedJdbc(DataSource dataSource, ShardingProperties properties) {
            String column = properties.getFencing().getFenceColumn();
            return new FencedJdbc(JdbcClient.create(dataSource), checked("sharding.fencing.fence-column", column));
        }

        @Bean
        @ConditionalOnMissingBean
        JdbcFenceStore shardingJdbcFenceStore(
                DataSource dataSource, ShardingProperties properties, ObjectProvider<Clock> clock) {
            FencingProperties fencing = properties.getFencing();
            return new JdbcFenceStore(
                    JdbcClient.create(dataSource),
                    checked("sharding.fencing.table", fencing.getTable()),
                    fencing.isInitializeSchema(),
                    clock.getIfAvailable(Clock::systemUTC));
        }
    }

    /** The token on the calls of RestClient and RestTemplate built from Boot's builders. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({RestClient.class, RestClientCustomizer.class})
    @ConditionalOnBooleanProperty(name = "sharding.fencing.http.client.enabled", matchIfMissing = true)
    static class RestClientFencingConfiguration {

        @Bean
        @ConditionalOnMissingBean
        FencingTokenInterceptor shardingFencingTokenInterceptor() {
            return new FencingTokenInterceptor();
        }

        @Bean
        RestClientCustomizer shardingFencingRestClientCustomizer(FencingTokenInterceptor interceptor) {
            return builder -> builder.requestInterceptor(interceptor);
        }

        @Bean
        RestTemplateCustomizer shardingFencingRestTemplateCustomizer(FencingTokenInterceptor interceptor) {
            return restTemplate -> restTemplate.getInterceptors().add(interceptor);
        }
    }

    /** The token on the calls of WebClient built from Boot's builder. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({WebClient.class, WebClientCustomizer.class})
    @ConditionalOnBooleanProperty(name = "sharding.fencing.http.client.enabled", matchIfMissing = true)
    static class WebClientFencingConfiguration {

        @Bean
        @ConditionalOnMissingBean
        FencingTokenExchangeFilter shardingFencingTokenExchangeFilter() {
            return new FencingTokenExchangeFilter();
        }

        @Bean
        WebClientCustomizer shardingFencingWebClientCustomizer(FencingTokenExchangeFilter filter) {
            return builder -> builder.filter(filter);
        }
    }

    /** The admission of the calls a servlet service takes, by the same store as its jobs' writes. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass({OncePerRequestFilter.class, FilterRegistrationBean.class})
    @ConditionalOnBooleanProperty("sharding.fencing.http.server.enabled")
    static class ServletFencingConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "shardingFencingTokenFilter")
        FilterRegistrationBean<FencingTokenFilter> shardingFencingTokenFilter(
                ObjectProvider<JdbcFenceStore> stores, ShardingProperties properties) {
            FencingProperties.Server server = properties.getFencing().getHttp().getServer();
            FilterRegistrationBean<FencingTokenFilter> registration =
                    new FilterRegistrationBean<>(new FencingTokenFilter(store(stores), server.isRequired()));
            registration.setUrlPatterns(urlPatterns(server.getUrlPatterns()));
            // Last, after Spring Security's (-100): a caller it turns away must not raise the token and fence out the
            // item's real owner.
            registration.setOrder(Ordered.LOWEST_PRECEDENCE);
            return registration;
        }
    }

    /** The same admission for a WebFlux service. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    @ConditionalOnClass(WebFilter.class)
    @ConditionalOnBooleanProperty("sharding.fencing.http.server.enabled")
    static class ReactiveFencingConfiguration {

        /** Unordered, so last: after Spring Security's web filter (-100), for the reason the servlet filter is. */
        @Bean
        @ConditionalOnMissingBean
        ReactiveFencingTokenFilter shardingReactiveFencingTokenFilter(
                ObjectProvider<JdbcFenceStore> stores, ShardingProperties properties) {
            FencingProperties.Server server = properties.getFencing().getHttp().getServer();
            return new ReactiveFencingTokenFilter(
                    store(stores), server.isRequired(), urlPatterns(server.getUrlPatterns()));
        }
    }

    private static JdbcFenceStore store(ObjectProvider<JdbcFenceStore> stores) {
        JdbcFenceStore store = stores.getIfAvailable();
        if (store == null) {
            throw new InvalidShardingPropertyException(
                    "sharding.fencing.http.server.enabled",
                    "is true, but there is no JdbcFenceStore to keep the tokens in",
                    "Give the application one DataSource and spring-jdbc (the store is then set up on it), declare a"
                            + " JdbcFenceStore bean, or set sharding.fencing.http.server.enabled=false.");
        }
        return store;
    }

    private static List<String> urlPatterns(List<String> patterns) {
        List<String> bad = patterns.stream()
                .filter(pattern -> !URL_PATTERN.matcher(pattern).matches())
                .toList();
        if (patterns.isEmpty() || !bad.isEmpty()) {
            throw new InvalidShardingPropertyException(
                    "sharding.fencing.http.server.url-patterns",
                    patterns.isEmpty() ? "is empty" : "has patterns a servlet container does not take: " + bad,
                    "Give servlet URL patterns: an exact path (/orders), a path ending in /* (/orders/*, /*), or an"
                            + " extension (*.json).");
        }
        return patterns;
    }

    /** A name that goes into SQL statements as it is: refused at start-up unless it is a plain identifier. */
    private static String checked(String property, String name) {
        if (!FencedJdbc.isIdentifier(name)) {
            throw new InvalidShardingPropertyException(
                    property,
                    "'" + name + "' is not a plain SQL name",
                    "Set it to a table or column name of letters, digits and underscores, optionally schema-qualified"
                            + " (schema.name).");
        }
        return name;
    }
}
