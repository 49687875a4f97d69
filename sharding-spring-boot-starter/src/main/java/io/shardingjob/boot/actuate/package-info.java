/** The {@code sharding} Actuator endpoint, the health indicator and the Micrometer meters of sharded jobs. */
@NullMarked
package io.shardingjob.boot.actuate;

import org.jspecify.annotations.NullMarked;
