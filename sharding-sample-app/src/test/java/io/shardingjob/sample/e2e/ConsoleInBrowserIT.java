package io.shardingjob.sample.e2e;

import static io.shardingjob.sample.e2e.Drills.SETTLEMENT;
import static io.shardingjob.sample.e2e.Drills.assertCompleteAssignment;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.shardingjob.core.testing.ProcessGroup;
import io.shardingjob.core.testing.ZooKeeperServers;
import io.shardingjob.sample.e2e.ShardingJson.Execution;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;

/**
 * The operations console in a real browser (Debian's headless Chromium), against three copies of the packaged sample
 * application on one ZooKeeper server, each in its own JVM, and a fourth copy that only reads. Screenshots go to
 * {@code target/e2e/console/screenshots}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleInBrowserIT {

    private static final String SUITE = "console";

    private static final Duration GENEROUS = Duration.ofSeconds(60);

    private static final List<String> CONSOLE = Stream.concat(
                    Drills.FAST_JOBS.stream(), Stream.of("sharding.console.enabled=true"))
            .toList();

    private final ProcessGroup processes = new ProcessGroup();

    private final List<SampleApp> apps = new ArrayList<>();

    private ZooKeeperServers.Server zooKeeper;

    private Browser browser;

    @BeforeAll
    void startZooKeeperThreeCopiesAndABrowser() {
        Browser.assumeInstalled();
        zooKeeper = ZooKeeperServers.standalone(processes, SUITE + "/zookeeper");
        for (int n = 1; n <= 3; n++) {
            apps.add(SampleApp.start(processes, SUITE, "app-" + n, zooKeeper.address(), CONSOLE));
        }
        apps.forEach(app -> app.awaitReady(Duration.ofSeconds(180)));
        browser = Browser.open(ProcessGroup.workDirectory(SUITE).resolve("screenshots"));
    }

    @AfterAll
    void stopEverything() {
        try {
            if (browser != null) {
                browser.close();
            }
        } finally {
            processes.close();
        }
    }

    @Test
    @Order(1)
    void thePageShowsEveryJobAndEveryItemOwnedOnceByTheThreeCopies() {
        AtomicReference<Map<Integer, String>> owners = new AtomicReference<>();
        await("a complete assignment over three copies")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .untilAsserted(() -> owners.set(assertCompleteAssignment(apps, SETTLEMENT, 4)));
        SampleApp first = apps.get(0);

        browser.driver().get(first.url("/sharding-console"));
        waitFor(By.cssSelector("#jobs tr[data-job='" + SETTLEMENT + "']"));
        assertThat(rows("#jobs tr[data-job]"))
                .extracting(row -> row.getAttribute("data-job"))
                .contains(SETTLEMENT, Drills.STOCK);
        browser.waitAtMost(GENEROUS)
                .until(driver -> !driver.findElements(By.cssSelector("#jobs tr[data-job='" + SETTLEMENT + "'] .fire"))
                        .isEmpty());
        Path overview = browser.screenshot("overview");

        browser.driver()
                .findElement(
                        By.cssSelector("#jobs tr[data-job='" + SETTLEMENT + "'] a[href$='/jobs/" + SETTLEMENT + "']"))
                .click();
        browser.waitAtMost(GENEROUS).until(driver -> gridOwners().equals(owners.get()));
        assertThat(rows("#grid th[data-instance]"))
                .extracting(header -> header.getAttribute("data-instance"))
                .containsExactlyInAnyOrder("app-1", "app-2", "app-3");
        Path job = browser.screenshot("job-three-instances");
        Timings.report(
                "console", "three copies shown, owners " + owners.get() + "; screenshots " + overview + ", " + job);
    }

    @Test
    @Order(2)
    void theItemsOfAKilledCopyMoveToTheOthersOnThePage() {
        SampleApp victim = apps.get(2);
        browser.driver().get(apps.get(0).url("/sharding-console/jobs/" + SETTLEMENT));
        browser.waitAtMost(GENEROUS).until(driver -> gridOwners().containsValue(victim.instanceId()));

        victim.kill();
        apps.remove(victim);

        // One read of the grid per poll: a grid re-rendered between two reads reads as empty, which must not pass for
        // the new assignment (between the victim's session expiry and the reshard, its items still show as its own).
        browser.waitAtMost(GENEROUS).until(driver -> {
            Map<Integer, String> owners = gridOwners();
            return owners.size() == 4
                    && Set.of("app-1", "app-2").containsAll(owners.values())
                    && driver.findElements(By.cssSelector("#grid th[data-instance='app-3']"))
                            .isEmpty();
        });
        browser.screenshot("job-after-kill");
        await("the grid and both copies on the same assignment")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .untilAsserted(() -> assertThat(gridOwners()).isEqualTo(assertCompleteAssignment(apps, SETTLEMENT, 4)));
    }

    @Test
    @Order(3)
    void aFireTriggeredFromThePageRunsEveryItemOnceAndShowsInTheHistory() {
        SampleApp first = apps.get(0);
        browser.driver().get(first.url("/sharding-console/jobs/" + SETTLEMENT));
        waitFor(By.cssSelector("button[data-action='trigger']")).click();
        WebElement parameter = waitFor(By.id("job-parameter"));
        parameter.clear();
        parameter.sendKeys("from-the-console");
        browser.driver().findElement(By.id("confirm-yes")).click();
        browser.waitAtMost(GENEROUS)
                .ignoring(StaleElementReferenceException.class)
                .until(ExpectedConditions.attributeToBe(By.id("result"), "data-status", "ok"));

        waitFor(By.cssSelector("#fires tr[data-source='MANUAL']"));
        browser.screenshot("job-after-trigger");
        await("the manual fire's items, each once")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> {
                    List<Execution> manual = Drills.executions(apps, SETTLEMENT).stream()
                            .filter(run -> run.source().equals("MANUAL"))
                            .toList();
                    assertThat(manual).extracting(Execution::item).containsExactlyInAnyOrder(0, 1, 2, 3);
                    assertThat(manual).extracting(Execution::jobParameter).containsOnly("from-the-console");
                });
    }

    @Test
    @Order(4)
    void aCopyWhoseWritesAreNotAllowedShowsNoOperationsAndRefusesThem() {
        SampleApp readOnly = SampleApp.start(processes, SUITE, "app-read-only", zooKeeper.address(), CONSOLE, false)
                .awaitReady(Duration.ofSeconds(180));
        browser.driver().get(readOnly.url("/sharding-console/jobs/" + SETTLEMENT));

        waitFor(By.id("read-only"));
        assertThat(browser.driver().findElements(By.cssSelector("button[data-action]")))
                .isEmpty();
        Object status = browser.driver()
                .executeAsyncScript(
                        "const done = arguments[arguments.length - 1];"
                                + "fetch(arguments[0], {method: 'POST', headers: {'HX-Request': 'true',"
                                + " 'Content-Type': 'application/x-www-form-urlencoded'}, body: 'action=trigger'})"
                                + ".then(r => done(r.status), e => done(String(e)));",
                        readOnly.url("/sharding-console/jobs/" + SETTLEMENT + "/operations"));
        browser.screenshot("read-only");
        assertThat(status).isEqualTo(403L);
    }

    private WebElement waitFor(By locator) {
        return browser.waitAtMost(GENEROUS).until(ExpectedConditions.presenceOfElementLocated(locator));
    }

    private List<WebElement> rows(String selector) {
        return browser.driver().findElements(By.cssSelector(selector));
    }

    /** Item to owner as the grid shows it now; a row re-rendered while being read is read at the next poll. */
    private Map<Integer, String> gridOwners() {
        try {
            return rows("#grid tr[data-item]").stream()
                    .collect(Collectors.toMap(
                            row -> Integer.valueOf(row.getAttribute("data-item")),
                            row -> String.valueOf(row.getAttribute("data-owner")),
                            (a, b) -> a,
                            TreeMap::new));
        } catch (StaleElementReferenceException ex) {
            return Map.of();
        }
    }
}
