/**
 * Replica placement: replicas on distinct brokers, spread across racks, leaders balanced,
 * deterministic for the same inputs. Core: plain Java, no Spring (an architecture test enforces it).
 */
package io.tributary.coordinator.placement;
