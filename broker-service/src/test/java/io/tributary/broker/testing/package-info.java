/** Test doubles and builders shared by the broker's tests. */
package io.tributary.broker.testing;
