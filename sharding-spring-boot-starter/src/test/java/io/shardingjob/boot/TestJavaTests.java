package io.shardingjob.boot;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The build runs these tests on Java 17 and, where {@code JAVA25_HOME} is set (as in CI), again on Java 25 (the
 * {@code java-25} profile). Each pass names the Java it means in {@code sharding.test.java}; a pass that quietly ran on
 * another JDK, skipping the virtual-thread tests with it, fails here.
 */
class TestJavaTests {

    @Test
    void theTestsRunOnAtLeastTheJavaTheirPassNames() {
        int expected = Integer.getInteger("sharding.test.java", 17);

        assertThat(Runtime.version().feature())
                .as("the Java this pass runs on (sharding.test.java=%d)", expected)
                .isGreaterThanOrEqualTo(expected);
    }
}
