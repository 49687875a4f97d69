/**
 * The fire ledger: claims, take-overs, make-ups, completions and retention, with their pure rules; internal, not API.
 */
@NullMarked
package io.shardingjob.core.internal.ledger;

import org.jspecify.annotations.NullMarked;
