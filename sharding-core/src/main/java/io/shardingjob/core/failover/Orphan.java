package io.shardingjob.core.failover;

import io.shardingjob.core.execution.RunningMark;

/**
 * An item whose owner died or left before it completed, queued in {@code /{job}/failover/queue/{item}@{fireMillis}} until an
 * idle instance claims it: one per item and fire.
 *
 * @param path the queue node
 * @param item the item
 * @param mark the dead owner's mark: who, which epoch, which fire, which total
 * @param version the queue node's version, for an atomic claim
 */
public record Orphan(String path, int item, RunningMark mark, int version) {}
