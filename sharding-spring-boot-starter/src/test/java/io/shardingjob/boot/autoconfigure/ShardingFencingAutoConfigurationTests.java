package io.shardingjob.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardingjob.boot.fencing.FencedJdbc;
import io.shardingjob.boot.fencing.FencingTokenExchangeFilter;
import io.shardingjob.boot.fencing.FencingTokenFilter;
import io.shardingjob.boot.fencing.FencingTokenInterceptor;
import io.shardingjob.boot.fencing.JdbcFenceStore;
import io.shardingjob.boot.fencing.ReactiveFencingTokenFilter;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.RestTemplateCustomizer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The fencing helpers come with Spring's JDBC support and one DataSource, the token goes out with the calls of Boot's
 * HTTP clients unless turned off, the servlet filter comes only when asked for, and bad input stops start-up.
 */
class ShardingFencingAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ShardingFencingAutoConfiguration.class));

    private final WebApplicationContextRunner webRunner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ShardingFencingAutoConfiguration.class))
            .withBean(DataSource.class, ShardingFencingAutoConfigurationTests::database);

    private static DataSource database() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:fencing-config-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        return h2;
    }

    @Test
    void givesTheHelpersOnTheApplicationsDataSourceWithoutTouchingIt() {
        runner.withBean(DataSource.class, ShardingFencingAutoConfigurationTests::database)
                .run(context -> {
                    assertThat(context).hasSingleBean(FencedJdbc.class);
                    assertThat(context).hasSingleBean(JdbcFenceStore.class);
                    JdbcClient jdbc = JdbcClient.create(context.getBean(DataSource.class));
                    assertThat(jdbc.sql(
                                            "SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = 'SHARDING_FENCE'")
                                    .query(Integer.class)
                                    .single())
                            .as("no table before the first admission")
                            .isZero();
                    assertThat(context.getBean(JdbcFenceStore.class).admit("job/0", 7))
                            .isTrue();
                });
    }

    @Test
    void keepsTheTokensInTheTableItIsToldAndCreatesItOnFirstUse() {
        runner.withBean(DataSource.class, ShardingFencingAutoConfigurationTests::database)
                .withPropertyValues("sharding.fencing.table=job_fences")
                .run(context -> {
                    context.getBean(JdbcFenceStore.class).admit("job/0", 7);
                    assertThat(JdbcClient.create(context.getBean(DataSource.class))
                                    .sql("SELECT token FROM job_fences WHERE fence_key = 'job/0'")
                                    .query(Long.class)
                                    .single())
                            .isEqualTo(7);
                });
    }

    @Test
    void givesNoHelpersWithoutADataSourceOrWithoutSpringJdbc() {
        runner.run(context -> assertThat(context).doesNotHaveBean(FencedJdbc.class));
        runner.withBean(DataSource.class, ShardingFencingAutoConfigurationTests::database)
                .withClassLoader(new FilteredClassLoader(JdbcClient.class))
                .run(context -> assertThat(context).doesNotHaveBean(JdbcFenceStore.class));
    }

    @Test
    void aTableNameThatIsNoPlainSqlNameFailsStartUpNamingTheProperty() {
        runner.withBean(DataSource.class, ShardingFencingAutoConfigurationTests::database)
                .withPropertyValues("sharding.fencing.table=fences; DROP TABLE orders")
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis =
                            new InvalidShardingPropertyFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(analysis).isNotNull();
                    assertThat(analysis.getDescription())
                            .contains("sharding.fencing.table", "'fences; DROP TABLE orders' is not a plain SQL name");
                });
    }

    @Test
    void sendsTheTokenWithBootsHttpClientsByDefaultWithoutADataSource() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(FencingTokenInterceptor.class);
            assertThat(context).hasSingleBean(RestClientCustomizer.class);
            assertThat(context).hasSingleBean(RestTemplateCustomizer.class);
            assertThat(context).hasSingleBean(FencingTokenExchangeFilter.class);
            assertThat(context).hasSingleBean(WebClientCustomizer.class);
        });
    }

    @Test
    void sendsNoTokenWhenTurnedOffOrWithoutBootsClientModules() {
        runner.withPropertyValues("sharding.fencing.http.client.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(FencingTokenInterceptor.class);
            assertThat(context).doesNotHaveBean(RestClientCustomizer.class);
            assertThat(context).doesNotHaveBean(WebClientCustomizer.class);
        });
        runner.withClassLoader(new FilteredClassLoader(RestClientCustomizer.class, WebClientCustomizer.class))
                .run(context -> {
                    assertThat(context).doesNotHaveBean(RestClientCustomizer.class);
                    assertThat(context).doesNotHaveBean(FencingTokenExchangeFilter.class);
                });
    }

    @Test
    void admitsTheCallsThisServiceTakesOnlyWhenAskedAndOnlyInAServletApplication() {
        webRunner.run(context -> assertThat(context).doesNotHaveBean(FilterRegistrationBean.class));
        webRunner
                .withPropertyValues(
                        "sharding.fencing.http.server.enabled=true",
                        "sharding.fencing.http.server.url-patterns=/settlements/*,*.json")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    FilterRegistrationBean<?> registration = context.getBean(FilterRegistrationBean.class);
                    assertThat(registration.getFilter()).isInstanceOf(FencingTokenFilter.class);
                    assertThat(registration.getUrlPatterns()).containsExactly("/settlements/*", "*.json");
                });
        runner.withBean(DataSource.class, ShardingFencingAutoConfigurationTests::database)
                .withPropertyValues("sharding.fencing.http.server.enabled=true")
                .run(context -> assertThat(context).doesNotHaveBean(FilterRegistrationBean.class));
    }

    @Test
    void admitsTheCallsAWebFluxServiceTakesOnlyWhenAsked() {
        ReactiveWebApplicationContextRunner reactive = new ReactiveWebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ShardingFencingAutoConfiguration.class))
                .withBean(DataSource.class, ShardingFencingAutoConfigurationTests::database);
        reactive.run(context -> assertThat(context).doesNotHaveBean(ReactiveFencingTokenFilter.class));
        reactive.withPropertyValues("sharding.fencing.http.server.enabled=true").run(context -> {
            assertThat(context).hasSingleBean(ReactiveFencingTokenFilter.class);
            assertThat(context).doesNotHaveBean(FilterRegistrationBean.class);
        });
        reactive.withPropertyValues(
                        "sharding.fencing.http.server.enabled=true", "sharding.fencing.http.server.url-patterns=orders")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(new InvalidShardingPropertyFailureAnalyzer()
                                    .analyze(context.getStartupFailure())
                                    .getDescription())
                            .contains("sharding.fencing.http.server.url-patterns", "[orders]");
                });
    }

    @Test
    void aUrlPatternAServletContainerWouldNotTakeFailsStartUpNamingTheProperty() {
        webRunner
                .withPropertyValues(
                        "sharding.fencing.http.server.enabled=true",
                        "sharding.fencing.http.server.url-patterns=/settlements/**")
                .run(context -> assertFailedOn(
                        context,
                        "sharding.fencing.http.server.url-patterns",
                        "has patterns a servlet container does not take: [/settlements/**]"));
    }

    @Test
    void theFilterWithoutAStoreForTheTokensFailsStartUpNamingTheProperty() {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ShardingFencingAutoConfiguration.class))
                .withPropertyValues("sharding.fencing.http.server.enabled=true")
                .run(context -> assertFailedOn(
                        context,
                        "sharding.fencing.http.server.enabled",
                        "there is no JdbcFenceStore to keep the tokens in"));
    }

    private static void assertFailedOn(AssertableWebApplicationContext context, String property, String problem) {
        assertThat(context).hasFailed();
        FailureAnalysis analysis = new InvalidShardingPropertyFailureAnalyzer().analyze(context.getStartupFailure());
        assertThat(analysis).isNotNull();
        assertThat(analysis.getDescription()).contains(property, problem);
    }
}
