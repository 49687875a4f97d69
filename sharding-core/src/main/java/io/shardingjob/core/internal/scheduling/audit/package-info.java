/**
 * What the fires left undone, found in the ledger by the items' owner: claims of dead sessions taken over, fires
 * nobody claimed made up as the misfire policy says, and final writes owed written late; the work found runs through
 * the fire stage's runner.
 */
@NullMarked
package io.shardingjob.core.internal.scheduling.audit;

import org.jspecify.annotations.NullMarked;
