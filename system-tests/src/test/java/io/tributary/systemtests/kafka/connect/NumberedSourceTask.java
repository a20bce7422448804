package io.tributary.systemtests.kafka.connect;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;

/**
 * One range of {@link NumberedSourceConnector}: starts at the committed offset of its source
 * partition (0 when none) and emits the range's records in order, at most {@value #BATCH} per poll,
 * as far as the release file allows; with nothing released it waits up to {@value #IDLE_WAIT_MS} ms
 * (or until stopped) and returns no records, as {@link SourceTask#poll()} may.
 */
public final class NumberedSourceTask extends SourceTask {

    /** Most records one poll returns. */
    static final int BATCH = 100;

    /** How long a poll with nothing released waits before returning none (a stop ends it sooner). */
    static final long IDLE_WAIT_MS = 100;

    private final CountDownLatch stopping = new CountDownLatch(1);
    private String topic;
    private long recordsPerRange;
    private Path releaseFile;
    private int range;
    private Map<String, String> partition;
    private long next;

    @Override
    public void start(Map<String, String> props) {
        AbstractConfig config = new AbstractConfig(NumberedSourceConnector.CONFIG, props);
        topic = config.getString(NumberedSourceConnector.TOPIC);
        recordsPerRange = config.getLong(NumberedSourceConnector.RECORDS_PER_RANGE);
        releaseFile = Path.of(config.getString(NumberedSourceConnector.RELEASE_FILE));
        range = Integer.parseInt(props.get(NumberedSourceConnector.RANGE));
        partition = Map.of(NumberedSourceConnector.RANGE, Integer.toString(range));
        Map<String, Object> committed = context.offsetStorageReader().offset(partition);
        next = committed == null ? 0 : ((Number) committed.get("next")).longValue();
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        long released = Math.min(recordsPerRange, released());
        if (next >= released) {
            stopping.await(IDLE_WAIT_MS, TimeUnit.MILLISECONDS);
            return null;
        }
        long end = Math.min(released, next + BATCH);
        List<SourceRecord> records = new ArrayList<>((int) (end - next));
        for (; next < end; next++) {
            String number = Long.toString(range * recordsPerRange + next);
            records.add(new SourceRecord(
                    partition,
                    Map.of("next", next + 1),
                    topic,
                    null,
                    Schema.STRING_SCHEMA,
                    number,
                    Schema.STRING_SCHEMA,
                    number));
        }
        return records;
    }

    private long released() {
        try {
            return Long.parseLong(
                    Files.readString(releaseFile, StandardCharsets.UTF_8).trim());
        } catch (NoSuchFileException e) {
            return 0;
        } catch (IOException e) {
            throw new ConnectException("cannot read " + releaseFile, e);
        }
    }

    @Override
    public void stop() {
        stopping.countDown();
    }

    @Override
    public String version() {
        return "1";
    }
}
