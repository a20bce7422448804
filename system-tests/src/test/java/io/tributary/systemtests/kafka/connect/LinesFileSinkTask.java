package io.tributary.systemtests.kafka.connect;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collection;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/**
 * One task of {@link LinesFileSinkConnector}: each {@link #put} appends the records' values and
 * hands them to the operating system before it returns, so what Connect commits as consumed is in
 * the file even if the worker is killed right after (at least once).
 */
public final class LinesFileSinkTask extends SinkTask {

    private Path file;
    private BufferedWriter out;

    @Override
    public void start(Map<String, String> props) {
        AbstractConfig config = new AbstractConfig(LinesFileSinkConnector.CONFIG, props);
        Path dir = Path.of(config.getString(LinesFileSinkConnector.OUTPUT_DIR));
        file = dir.resolve("task-" + props.get(LinesFileSinkConnector.TASK_INDEX) + "-" + UUID.randomUUID() + ".txt");
        try {
            Files.createDirectories(dir);
            out = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE_NEW);
        } catch (IOException e) {
            throw new ConnectException("cannot create " + file, e);
        }
    }

    @Override
    public void put(Collection<SinkRecord> records) {
        try {
            for (SinkRecord record : records) {
                out.write(String.valueOf(record.value()));
                out.newLine();
            }
            out.flush();
        } catch (IOException e) {
            throw new ConnectException("cannot write " + file, e);
        }
    }

    @Override
    public void flush(Map<TopicPartition, OffsetAndMetadata> currentOffsets) {
        // put() already flushed everything it wrote
    }

    @Override
    public void stop() {
        if (out == null) {
            return;
        }
        try {
            out.close();
        } catch (IOException e) {
            throw new ConnectException("cannot close " + file, e);
        }
    }

    @Override
    public String version() {
        return "1";
    }
}
