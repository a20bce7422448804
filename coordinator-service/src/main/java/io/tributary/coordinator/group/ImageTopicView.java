package io.tributary.coordinator.group;

import io.tributary.coordinator.metadata.MetadataImage;
import io.tributary.coordinator.metadata.Topic;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The topics of the coordinator's latest applied {@link MetadataImage}. The lookup by id is built
 * once per image (images are immutable) and cached with it.
 *
 * <p>Thread-safe: the cache is one volatile reference to an immutable pair.
 */
public final class ImageTopicView implements TopicView {

    private record Indexed(MetadataImage image, Map<UUID, TopicInfo> byId, List<TopicInfo> all) {}

    private final Supplier<MetadataImage> images;
    private volatile Indexed indexed;

    /** @param images the current image, e.g. {@code node.stateMachine()::image} */
    public ImageTopicView(Supplier<MetadataImage> images) {
        this.images = Objects.requireNonNull(images, "images");
    }

    private Indexed current() {
        MetadataImage image = images.get();
        Indexed cached = indexed;
        if (cached != null && cached.image() == image) {
            return cached;
        }
        Map<UUID, TopicInfo> byId = new HashMap<>();
        for (Topic topic : image.topics().values()) {
            byId.put(topic.id(), info(topic));
        }
        Indexed fresh = new Indexed(image, Map.copyOf(byId), List.copyOf(byId.values()));
        indexed = fresh;
        return fresh;
    }

    private static TopicInfo info(Topic topic) {
        return new TopicInfo(topic.name(), topic.id(), topic.partitions().size());
    }

    @Override
    public Optional<TopicInfo> byName(String name) {
        return Optional.ofNullable(current().image().topics().get(name)).map(ImageTopicView::info);
    }

    @Override
    public Optional<TopicInfo> byId(UUID id) {
        return Optional.ofNullable(current().byId().get(id));
    }

    @Override
    public Collection<TopicInfo> all() {
        return current().all();
    }
}
