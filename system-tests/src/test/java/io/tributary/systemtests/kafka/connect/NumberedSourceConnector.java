package io.tributary.systemtests.kafka.connect;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * A source of numbered records: {@code tasks.max} tasks, task {@code r} owning the range of
 * record numbers {@code [r * n, (r + 1) * n)} with {@code n} = {@value #RECORDS_PER_RANGE}. Each
 * record's key and value are its number as decimal text. A task emits its range in order, but only
 * as far as the release file ({@value #RELEASE_FILE}: one decimal number, how many records of each
 * range may be emitted so far) allows, so that the test decides when records flow. A task's source
 * partition is {@code {"range": "<r>"}} and its offset after record {@code r * n + i} is {@code
 * {"next": i + 1}}: a task started again (on another worker, after a crash) resumes at the committed
 * offset. See {@link NumberedSourceTask}.
 */
public final class NumberedSourceConnector extends SourceConnector {

    /** The topic to write to. */
    public static final String TOPIC = "topic";

    /** How many records each range (each task) holds. */
    public static final String RECORDS_PER_RANGE = "records.per.range";

    /** The file that says how many records of each range may be emitted so far. */
    public static final String RELEASE_FILE = "release.file";

    /** Task setting: the task's range, {@code 0 .. tasks.max - 1}. */
    static final String RANGE = "range";

    static final ConfigDef CONFIG = new ConfigDef()
            .define(TOPIC, ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "The topic to write to.")
            .define(
                    RECORDS_PER_RANGE,
                    ConfigDef.Type.LONG,
                    ConfigDef.NO_DEFAULT_VALUE,
                    ConfigDef.Range.atLeast(1),
                    ConfigDef.Importance.HIGH,
                    "How many records each task's range holds.")
            .define(
                    RELEASE_FILE,
                    ConfigDef.Type.STRING,
                    ConfigDef.Importance.HIGH,
                    "A file holding how many records of each range may be emitted so far (none: 0).");

    private Map<String, String> settings = Map.of();

    @Override
    public void start(Map<String, String> props) {
        CONFIG.parse(props);
        settings = Map.copyOf(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return NumberedSourceTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        return TaskConfigs.indexed(settings, RANGE, maxTasks);
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
