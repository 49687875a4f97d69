/** The job configuration every instance agrees on, stored in ZooKeeper; internal, not API. */
@NullMarked
package io.shardingjob.core.internal.config;

import org.jspecify.annotations.NullMarked;
