package io.tributary.systemtests.kafka.connect;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;

/**
 * A sink whose tasks append the value of every record they are given, one per line, to a file of
 * their own in {@value #OUTPUT_DIR} ({@code task-<index>-<random>.txt}: a task started again, on
 * another worker, writes a new file, so no two task instances share one). See {@link
 * LinesFileSinkTask}.
 */
public final class LinesFileSinkConnector extends SinkConnector {

    /** The directory the tasks write their files into. */
    public static final String OUTPUT_DIR = "output.dir";

    /** Task setting: the task's index, {@code 0 .. tasks.max - 1}, in its files' names. */
    static final String TASK_INDEX = "task.index";

    static final ConfigDef CONFIG = new ConfigDef()
            .define(OUTPUT_DIR, ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "Where the tasks write.");

    private Map<String, String> settings = Map.of();

    @Override
    public void start(Map<String, String> props) {
        CONFIG.parse(props);
        settings = Map.copyOf(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return LinesFileSinkTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        return TaskConfigs.indexed(settings, TASK_INDEX, maxTasks);
    }

    @Override
    public void stop() {
        // nothing to release: the tasks do the work
    }

    @Override
    public ConfigDef config() {
        return CONFIG;
    }

    @Override
    public String version() {
        return "1";
    }
}
