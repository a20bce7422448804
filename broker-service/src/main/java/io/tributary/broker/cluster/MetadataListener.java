package io.tributary.broker.cluster;

/**
 * Told of every new cluster image, in version order, on the metadata follower's thread (one
 * listener call at a time). A listener must not block for long: it delays the next image.
 */
@FunctionalInterface
public interface MetadataListener {

    void onImage(ClusterImage previous, ClusterImage next);
}
