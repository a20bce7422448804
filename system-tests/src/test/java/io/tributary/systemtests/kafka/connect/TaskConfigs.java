package io.tributary.systemtests.kafka.connect;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The task settings both connectors hand out: the connector's own, plus each task's index. */
final class TaskConfigs {

    private TaskConfigs() {}

    /** {@code count} copies of {@code settings}, copy {@code i} with {@code indexKey} set to {@code i}. */
    static List<Map<String, String>> indexed(Map<String, String> settings, String indexKey, int count) {
        List<Map<String, String>> configs = new ArrayList<>(count);
        for (int index = 0; index < count; index++) {
            Map<String, String> config = new HashMap<>(settings);
            config.put(indexKey, Integer.toString(index));
            configs.add(Map.copyOf(config));
        }
        return configs;
    }
}
