/**
 * Replication: followers fetching from leaders, the ISR, the high watermark and leader epochs.
 * Core: plain Java, no Spring (an architecture test enforces it).
 */
package io.tributary.broker.replication;
