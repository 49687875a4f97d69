/** Leader election among the live, enabled instances of one job; internal, not API. */
@NullMarked
package io.shardingjob.core.internal.election;

import org.jspecify.annotations.NullMarked;
