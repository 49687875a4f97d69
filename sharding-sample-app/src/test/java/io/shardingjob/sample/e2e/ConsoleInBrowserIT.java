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
                    Drills.FAST_JOBS.stream(),
                    Stream.of("sharding.console.enabled=true", "sample.console-drill.enabled=true"))
            .toList();

    /** The sample's two jobs and the console drill's two, defined at run time (the sample's ConsoleDrill). */
    private static final int JOBS = 4;

    private static final String DRILL_SOURCE = "drillSource";

    private static final String DRILL_FOLLOWER = "drillFollower";

    private final ProcessGroup processes = new ProcessGroup();

    private final List<SampleApp> apps = new ArrayList<>();

    private ZooKeeperServers.Server zooKeeper;

    /** The copy that only reads (from {@link #aCopyWhoseWritesAreNotAllowedShowsNoOperationsAndRefusesThem} on). */
    private SampleApp readOnly;

    private Browser browser;

    @BeforeAll
    void startZooKeeperThreeCopiesAndABrowser() {
        Browser.assumeInstalled();
        zooKeeper = ZooKeeperServers.standalone(processes, SUITE + "/zookeeper");
        for (int n = 1; n <= 3; n++) {
            apps.add(SampleApp.start(processes, SUITE, "app-" + n, zooKeeper.address(), CONSOLE));
        }
        apps.forEach(app -> app.awaitReady(Duration.ofSeconds(180), JOBS));
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
        assertThat(attributes("#jobs tr[data-job]", "data-job")).contains(SETTLEMENT, Drills.STOCK);
        browser.waitAtMost(GENEROUS)
                .until(driver -> !driver.findElements(By.cssSelector("#jobs tr[data-job='" + SETTLEMENT + "'] .fire"))
                        .isEmpty());
        Path overview = browser.screenshot("overview");

        // Found and clicked in one go, again if htmx re-rendered the table in between (the link found is then gone).
        browser.waitAtMost(GENEROUS)
                .ignoring(StaleElementReferenceException.class)
                .until(driver -> {
                    driver.findElement(By.cssSelector(
                                    "#jobs tr[data-job='" + SETTLEMENT + "'] a[href$='/jobs/" + SETTLEMENT + "']"))
                            .click();
                    return true;
                });
        browser.waitAtMost(GENEROUS).until(driver -> gridOwners().equals(owners.get()));
        assertThat(attributes("#grid th[data-instance]", "data-instance"))
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
        readOnly = SampleApp.start(processes, SUITE, "app-read-only", zooKeeper.address(), CONSOLE, false)
                .awaitReady(Duration.ofSeconds(180), JOBS);
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

    @Test
    @Order(5)
    void theGraphOfJobsDrawsEveryJobAndTheArrowOfAChainAndLinksToTheJobs() {
        browser.driver().get(apps.get(0).url("/sharding-console"));
        waitFor(By.id("graph-link")).click();

        waitFor(By.cssSelector("svg#job-graph"));
        assertThat(attributes("#job-graph g.job", "data-job"))
                .contains(SETTLEMENT, Drills.STOCK, DRILL_SOURCE, DRILL_FOLLOWER);
        assertThat(attributes(
                        "#job-graph g.edge[data-from='" + DRILL_SOURCE + "'][data-to='" + DRILL_FOLLOWER + "']",
                        "data-label"))
                .containsExactly("success");
        assertThat(attributes("#job-graph g.job.on-demand", "data-job")).contains(DRILL_SOURCE, DRILL_FOLLOWER);
        browser.screenshot("graph");

        waitFor(By.cssSelector("#job-graph g.job[data-job='" + DRILL_FOLLOWER + "'] a"))
                .click();
        browser.waitAtMost(GENEROUS).until(ExpectedConditions.urlContains("/jobs/" + DRILL_FOLLOWER));
        // Neither has fired yet (the next test fires drillSource): the chain section says so.
        waitFor(By.id("chain-title"));
    }

    @Test
    @Order(6)
    void theReRunButtonOfAFireWithAFailedItemRunsTheItemAgainAndItSucceeds() {
        SampleApp first = apps.get(0);
        String page = first.url("/sharding-console/jobs/" + DRILL_SOURCE);
        browser.driver().get(page);
        waitFor(By.cssSelector("button[data-action='trigger']")).click();
        waitFor(By.id("confirm-yes")).click();
        browser.waitAtMost(GENEROUS)
                .ignoring(StaleElementReferenceException.class)
                .until(ExpectedConditions.attributeToBe(By.id("result"), "data-status", "ok"));

        // Item 1 of drillSource fails but when re-run: the manual fire's row shows it failed, with a re-run button.
        String failedRow = "#fires tr[data-source='MANUAL']";
        String fireTime = browser.waitAtMost(GENEROUS)
                .ignoring(StaleElementReferenceException.class)
                .until(driver ->
                        driver.findElements(By.cssSelector(failedRow + " button[data-action='rerun']")).stream()
                                .findFirst()
                                .map(button -> driver.findElement(By.cssSelector(failedRow))
                                        .getAttribute("data-fire-time"))
                                .orElse(null));
        String row = "#fires tr[data-fire-time='" + fireTime + "']";
        assertThat(itemState(row, 1)).isEqualTo("FAILED");
        // Down the chain, the follower (on: success) says why it has not fired for this fire.
        browser.waitAtMost(GENEROUS)
                .ignoring(StaleElementReferenceException.class)
                .until(driver -> driver.findElement(By.cssSelector("table#chain[data-fire-time='" + fireTime
                                + "'] tr[data-job='" + DRILL_FOLLOWER + "'] td.why"))
                        .getText()
                        .contains(DRILL_SOURCE + " failed items at " + fireTime + " (on: success)"));
        browser.screenshot("job-failed-item");

        browser.driver().get(page);
        browser.waitAtMost(GENEROUS)
                .ignoring(StaleElementReferenceException.class)
                .until(driver -> {
                    driver.findElement(By.cssSelector(row + " button[data-action='rerun']"))
                            .click();
                    return true;
                });
        waitFor(By.id("confirm-yes")).click();
        browser.waitAtMost(GENEROUS)
                .ignoring(StaleElementReferenceException.class)
                .until(ExpectedConditions.attributeToBe(By.id("result"), "data-status", "ok"));

        browser.waitAtMost(GENEROUS).until(driver -> "SUCCESS".equals(itemState(row, 1)));
        assertThat(rows(row + " button[data-action='rerun']")).isEmpty();
        waitFor(By.cssSelector("#timeline rect.run[data-job='" + DRILL_SOURCE + "'][data-item='1']"));
        waitFor(By.cssSelector("table#chain[data-fire-time='" + fireTime + "'] tr[data-job='" + DRILL_FOLLOWER + "']"));
        browser.screenshot("job-after-rerun");
        browser.driver().executeScript("document.getElementById('chain-title').scrollIntoView()");
        browser.screenshot("job-chain-and-timeline");
        await("item 1 re-run once, successfully, as its fire's run")
                .atMost(GENEROUS)
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertThat(Drills.executions(everyCopy(), DRILL_SOURCE))
                        .filteredOn(run -> run.item() == 1 && run.source().equals("RETRY"))
                        .extracting(Execution::outcome)
                        .containsExactly("SUCCESS"));
    }

    /** The copies running now: the read-only one owns items too. */
    private List<SampleApp> everyCopy() {
        List<SampleApp> copies = new ArrayList<>(apps);
        if (readOnly != null) {
            copies.add(readOnly);
        }
        return copies;
    }

    /** The state the fires table shows for an item of the fire in {@code row}, null while the row is re-rendered. */
    private String itemState(String row, int item) {
        return attributes(row + " li[data-item='" + item + "']", "data-state").stream()
                .findFirst()
                .orElse(null);
    }

    private WebElement waitFor(By locator) {
        return browser.waitAtMost(GENEROUS).until(ExpectedConditions.presenceOfElementLocated(locator));
    }

    private List<WebElement> rows(String selector) {
        return browser.driver().findElements(By.cssSelector(selector));
    }

    /** Item to owner as the grid shows it now, read in one pass of the page. */
    private Map<Integer, String> gridOwners() {
        return read("#grid tr[data-item]", "data-item", "data-owner").stream()
                .collect(Collectors.toMap(
                        row -> Integer.valueOf(row.get(0)),
                        row -> String.valueOf(row.get(1)),
                        (a, b) -> a,
                        TreeMap::new));
    }

    /** The value of {@code attribute} on every element {@code selector} finds now, in the page's order. */
    private List<String> attributes(String selector, String attribute) {
        return read(selector, attribute).stream().map(values -> values.get(0)).toList();
    }

    /**
     * The values of {@code attributes} on every element {@code selector} finds, read by one script in the page: htmx
     * re-renders the tables every few seconds, and elements found first and read after may be gone by then.
     */
    @SuppressWarnings("unchecked")
    private List<List<String>> read(String selector, String... attributes) {
        Object values = browser.driver()
                .executeScript(
                        "return Array.from(document.querySelectorAll(arguments[0]),"
                                + " e => arguments[1].map(name => e.getAttribute(name)));",
                        selector,
                        List.of(attributes));
        return (List<List<String>>) values;
    }
}
