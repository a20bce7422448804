package io.tributary.broker.api;

import io.tributary.broker.cluster.ClusterImage;
import io.tributary.broker.cluster.MetadataView;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * This broker's view for handler tests: either it follows a {@link FakeControlPlane} at once (every
 * write is visible when the call returns) or it is frozen at one image (a broker whose metadata
 * follower lags). {@link #awaitVersion} never blocks: a frozen view answers false at once, and every
 * wait's timeout is recorded so tests can check what a handler asked for.
 */
final class FakeMetadataView implements MetadataView {

    private final int brokerId;
    private volatile Supplier<ClusterImage> images;
    final List<Duration> waits = new CopyOnWriteArrayList<>();

    private FakeMetadataView(int brokerId, Supplier<ClusterImage> images) {
        this.brokerId = brokerId;
        this.images = images;
    }

    static FakeMetadataView following(FakeControlPlane controlPlane, int brokerId) {
        return new FakeMetadataView(brokerId, controlPlane::image);
    }

    static FakeMetadataView fixed(ClusterImage image, int brokerId) {
        return new FakeMetadataView(brokerId, () -> image);
    }

    /** From now on the view stays at the image it has. */
    void freeze() {
        ClusterImage frozen = images.get();
        images = () -> frozen;
    }

    @Override
    public ClusterImage image() {
        return images.get();
    }

    @Override
    public boolean awaitVersion(long version, Duration timeout) {
        waits.add(timeout);
        return image().version() >= version;
    }

    @Override
    public int brokerId() {
        return brokerId;
    }

    @Override
    public boolean isActive() {
        return true;
    }
}
