package io.shardingjob.sample.e2e;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's headless Chromium driven through its own ChromeDriver: both paths are given, so Selenium never looks for or
 * downloads a browser. The flags keep Chromium off the network (this machine's is closed, and Chromium's background
 * connections would only be refused) and off any profile but a fresh one.
 */
final class Browser implements AutoCloseable {

    static final Path CHROMIUM = Path.of(System.getProperty("browser.chromium", "/usr/bin/chromium"));

    static final Path CHROMEDRIVER = Path.of(System.getProperty("browser.chromedriver", "/usr/bin/chromedriver"));

    /** Held here: java.util.logging keeps loggers weakly, and a collected one forgets its level. */
    private static final Logger SELENIUM_LOG = Logger.getLogger("org.openqa.selenium");

    private final ChromeDriver driver;

    private final Path profile;

    private final Path screenshots;

    private Browser(ChromeDriver driver, Path profile, Path screenshots) {
        this.driver = driver;
        this.profile = profile;
        this.screenshots = screenshots;
    }

    /** Skips the calling test, saying why, when Chromium or its driver is not installed ({@code .ci/run} installs both). */
    static void assumeInstalled() {
        assumeTrue(
                Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "Debian's chromium and chromium-driver are not installed (" + CHROMIUM + ", " + CHROMEDRIVER
                        + "); .ci/run installs them");
    }

    /** A fresh headless browser, 1400x1000, whose screenshots go to {@code screenshots}. */
    static Browser open(Path screenshots) {
        // Selenium warns at every start that it has no DevTools bindings for Debian's Chromium version; nothing here
        // uses DevTools.
        SELENIUM_LOG.setLevel(Level.SEVERE);
        try {
            Path profile = Files.createTempDirectory("chromium-profile");
            Files.createDirectories(screenshots);
            ChromeOptions options = new ChromeOptions();
            options.setBinary(CHROMIUM.toFile());
            options.addArguments(
                    "--headless=new",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-dev-shm-usage",
                    "--disable-quic",
                    "--no-first-run",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    "--window-size=1400,1000",
                    "--user-data-dir=" + profile);
            ChromeDriverService service = new ChromeDriverService.Builder()
                    .usingDriverExecutable(CHROMEDRIVER.toFile())
                    .usingAnyFreePort()
                    .build();
            return new Browser(new ChromeDriver(service, options), profile, screenshots);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    ChromeDriver driver() {
        return driver;
    }

    WebDriverWait waitAtMost(Duration timeout) {
        return new WebDriverWait(driver, timeout, Duration.ofMillis(100));
    }

    /** Saves what the page shows now as {@code name}.png and returns its path. */
    Path screenshot(String name) {
        File shot = driver.getScreenshotAs(OutputType.FILE);
        Path target = screenshots.resolve(name + ".png");
        try {
            Files.copy(shot.toPath(), target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        return target;
    }

    @Override
    public void close() {
        try {
            driver.quit();
        } finally {
            deleteQuietly(profile);
        }
    }

    private static void deleteQuietly(Path directory) {
        try (var paths = Files.walk(directory)) {
            paths.sorted(java.util.Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException ex) {
            // A profile left in the temporary directory harms nothing.
        }
    }
}
