/**
 * Consumer groups: membership, assignment and committed offsets. Core: plain Java, no Spring (an
 * architecture test enforces it).
 */
package io.tributary.coordinator.group;
