package io.shardingjob.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.SoftAssertions.assertSoftly;

import io.shardingjob.boot.autoconfigure.ShardedJobProperties;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code docs/configuration.md} documents every property once, and only properties that exist: each {@code sharding.*}
 * property of the configuration metadata generated at build time, and each per-job property (a field of
 * {@link ShardedJobProperties}, kebab-cased, under {@code sharding.jobs.<name>.}), has exactly one row in the page's
 * tables, and every {@code sharding.*} name the page writes in backticks is one of them. Only names in backticks count,
 * so wording, order and new rows never break it. A key under a concrete job name ({@code sharding.jobs.orderSync.crn})
 * is an example and is not checked.
 */
class ConfigurationPageTests {

    /** Surefire runs in the module's directory; the page is the project's. */
    private static final Path PAGE = Path.of("../docs/configuration.md");

    private static final String METADATA = "META-INF/spring-configuration-metadata.json";

    /** The map of per-job settings, whose keys are job names. */
    private static final String JOBS = "sharding.jobs";

    /** A name in backticks, alone or followed by a value: {@code `sharding.a.b`}, {@code `sharding.a.b=true`}. */
    private static final Pattern NAME_IN_BACKTICKS =
            Pattern.compile("`(sharding(?:\\.(?:[a-z0-9-]+|<[a-z-]+>))+)(?:[=:\\s][^`\\n]*)?`");

    /** A table row whose first cell is a name in backticks. */
    private static final Pattern ROW = Pattern.compile("^\\|\\s*`(sharding\\.[^`]+)`\\s*\\|", Pattern.MULTILINE);

    /** A per-job property: {@code sharding.jobs.<name>.cron}. */
    private static final Pattern PER_JOB = Pattern.compile(Pattern.quote(JOBS) + "\\.<[a-z-]+>\\.([a-z0-9-]+)");

    private static final Pattern FENCED_BLOCK = Pattern.compile("^```.*?^```", Pattern.MULTILINE | Pattern.DOTALL);

    @Test
    void givesEveryPropertyOfTheMetadataExactlyOneRow() throws IOException {
        Metadata metadata = Metadata.read();
        Map<String, Long> rows = rows(prose());
        Set<String> undocumented = new TreeSet<>();
        Set<String> documentedTwice = new TreeSet<>();
        for (String property : metadata.properties()) {
            long count = rows.getOrDefault(property, 0L);
            if (count == 0) {
                undocumented.add(property);
            } else if (count > 1) {
                documentedTwice.add(property);
            }
        }
        for (String map : metadata.maps()) {
            if (rows.keySet().stream().noneMatch(row -> row.startsWith(map + ".<"))) {
                undocumented.add(map + ".<key>.*");
            }
        }
        assertSoftly(softly -> {
            softly.assertThat(undocumented)
                    .as("properties of the metadata without a row in %s: add one (property, default, meaning)", PAGE)
                    .isEmpty();
            softly.assertThat(documentedTwice)
                    .as("properties with more than one row in %s: keep one", PAGE)
                    .isEmpty();
        });
    }

    @Test
    void namesOnlyPropertiesTheMetadataHas() throws IOException {
        Metadata metadata = Metadata.read();
        Set<String> perJob = perJobProperties();
        Set<String> unknown = new TreeSet<>();
        for (String name : namesInBackticks(prose())) {
            if (name.contains("<")) {
                Matcher perJobName = PER_JOB.matcher(name);
                if (perJobName.matches()) {
                    if (!perJob.contains(perJobName.group(1))) {
                        unknown.add(name);
                    }
                } else if (!metadata.maps().contains(name.substring(0, name.indexOf(".<")))) {
                    unknown.add(name);
                }
            } else if (metadata.maps().stream().noneMatch(map -> name.startsWith(map + "."))
                    && !metadata.properties().contains(name)
                    && !metadata.groups().contains(name)
                    && !metadata.maps().contains(name)) {
                unknown.add(name);
            }
        }
        assertThat(unknown)
                .as("names in %s that are neither a property of the metadata nor a field of ShardedJobProperties", PAGE)
                .isEmpty();
    }

    @Test
    void givesEveryPerJobPropertyExactlyOneRow() throws IOException {
        Map<String, Long> perJobRows = rows(prose()).entrySet().stream()
                .map(row -> Map.entry(PER_JOB.matcher(row.getKey()), row.getValue()))
                .filter(row -> row.getKey().matches())
                .collect(Collectors.toMap(row -> row.getKey().group(1), Map.Entry::getValue, Long::sum, TreeMap::new));
        Set<String> perJob = perJobProperties();
        assertSoftly(softly -> {
            softly.assertThat(difference(perJob, perJobRows.keySet()))
                    .as("fields of ShardedJobProperties without a %s.<name>.* row in %s", JOBS, PAGE)
                    .isEmpty();
            softly.assertThat(difference(perJobRows.keySet(), perJob))
                    .as("%s.<name>.* rows in %s without a field of ShardedJobProperties", JOBS, PAGE)
                    .isEmpty();
            softly.assertThat(perJobRows.entrySet().stream()
                            .filter(row -> row.getValue() > 1)
                            .map(Map.Entry::getKey)
                            .toList())
                    .as("per-job properties with more than one row in %s: keep one", PAGE)
                    .isEmpty();
        });
    }

    /** The page without its fenced code blocks, whose keys are examples, not documentation. */
    private static String prose() throws IOException {
        return FENCED_BLOCK.matcher(Files.readString(PAGE)).replaceAll("");
    }

    private static Map<String, Long> rows(String page) {
        return ROW.matcher(page)
                .results()
                .map(row -> row.group(1))
                .collect(Collectors.groupingBy(Function.identity(), TreeMap::new, Collectors.counting()));
    }

    private static Set<String> namesInBackticks(String page) {
        return NAME_IN_BACKTICKS
                .matcher(page)
                .results()
                .map(name -> name.group(1))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** The fields of {@link ShardedJobProperties} as their keys are written: {@code timeZone} as {@code time-zone}. */
    private static Set<String> perJobProperties() {
        return Arrays.stream(ShardedJobProperties.class.getDeclaredFields())
                .filter(field -> !Modifier.isStatic(field.getModifiers()) && !field.isSynthetic())
                .map(Field::getName)
                .map(name -> name.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    private static Set<String> difference(Collection<String> all, Collection<String> minus) {
        Set<String> difference = new TreeSet<>(all);
        difference.removeAll(minus);
        return difference;
    }

    /**
     * The {@code sharding.*} names of every configuration metadata file on the class path: the properties, the maps
     * among them (whose keys are not property names) and the groups.
     */
    private record Metadata(Set<String> properties, Set<String> maps, Set<String> groups) {

        static Metadata read() throws IOException {
            Set<String> properties = new TreeSet<>();
            Set<String> maps = new TreeSet<>();
            Set<String> groups = new TreeSet<>();
            JsonMapper json = JsonMapper.builder().build();
            Enumeration<URL> files =
                    ConfigurationPageTests.class.getClassLoader().getResources(METADATA);
            List<URL> urls = Collections.list(files);
            assertThat(urls)
                    .as("%s on the class path (written when the starter compiles)", METADATA)
                    .isNotEmpty();
            for (URL url : urls) {
                try (InputStream in = url.openStream()) {
                    JsonNode root = json.readTree(in);
                    for (JsonNode property : root.path("properties")) {
                        String name = property.path("name").asString();
                        if (name.startsWith("sharding.")) {
                            boolean map = property.path("type").asString().startsWith("java.util.Map<");
                            (map ? maps : properties).add(name);
                        }
                    }
                    for (JsonNode group : root.path("groups")) {
                        String name = group.path("name").asString();
                        if (name.equals("sharding") || name.startsWith("sharding.")) {
                            groups.add(name);
                        }
                    }
                }
            }
            assertThat(properties).as("sharding.* properties in %s", METADATA).isNotEmpty();
            return new Metadata(properties, maps, groups);
        }
    }
}
