package io.tributary.gateway.consume;

import io.swagger.v3.oas.annotations.Operation;
import io.tributary.gateway.admin.TopicNames;
import io.tributary.gateway.metrics.GatewayMetrics;
import io.tributary.gateway.problem.Problem;
import io.tributary.gateway.problem.ProblemException;
import io.tributary.gateway.record.RecordJson;
import io.tributary.gateway.sse.CursorCodec;
import io.tributary.gateway.sse.StreamCursor;
import io.tributary.gateway.table.TableJson;
import io.tributary.gateway.table.TableReader;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code GET /v1/topics/{topic}/table}: the latest record of every live key of a topic (a compacted
 * topic's current state) as of one offset vector, streamed as NDJSON ({@link TableReader} says how
 * and in what memory). Each line is a record in the long-poll fetch's JSON shape ({@link
 * RecordJson#writeConsumed}, never a tombstone); the last line is the end ({@link TableJson}: the
 * vector as an SSE cursor and as next offsets), also sent first as the {@code Table-Cursor} header.
 * A problem found before the vector is taken (the topic, the parameters, no free reader, the
 * cluster) is an ordinary problem+json answer; once it is taken the status (200) and the header are
 * sent at once, and a problem while reading ({@code table-too-large}, the cluster) is the last line,
 * {@code {"problem":{...}}}, instead of the end line, after the part of the table sent so far. A
 * body without an end line or a problem line was cut: the table is incomplete.
 */
@RestController
public class TableController {

    /** The header with the table's cursor (the offset vector), sent before the records. */
    public static final String CURSOR_HEADER = "Table-Cursor";

    private static final Logger log = LoggerFactory.getLogger(TableController.class);
    private static final JsonFactory JSON = JsonFactory.builder().build();

    private final Admin admin;
    private final TableReaders readers;
    private final Duration clusterTimeout;
    private final GatewayMetrics metrics;
    private final JsonMapper json;

    public TableController(
            Admin admin, TableReaders readers, Duration clusterTimeout, GatewayMetrics metrics, JsonMapper json) {
        this.admin = admin;
        this.readers = readers;
        this.clusterTimeout = clusterTimeout;
        this.metrics = metrics;
        this.json = json;
    }

    @Operation(operationId = "readTable", summary = "The latest record of every live key, as NDJSON")
    @GetMapping(path = "/v1/topics/{topic}/table")
    public void table(
            @PathVariable("topic") String topic,
            @RequestParam(name = "partitions", required = false) String partitions,
            HttpServletResponse response)
            throws IOException, InterruptedException {
        TopicNames.requireValid(topic);
        TopicDescription description = StreamTopics.describe(admin, topic, clusterTimeout);
        List<Integer> chosen =
                StreamTopics.partitions(partitions, description.partitions().size());
        try (TableReaders.Lease lease = readers.acquire()) {
            TableReader reader = lease.reader();
            TreeMap<Integer, Long> vector = reader.endOffsets(topic, chosen);
            String cursor =
                    CursorCodec.encode(new StreamCursor(description.topicId().toString(), vector));
            response.setStatus(200);
            response.setContentType("application/x-ndjson");
            response.setCharacterEncoding("UTF-8");
            response.setHeader(CURSOR_HEADER, cursor);
            OutputStream out = response.getOutputStream();
            out.flush(); // the status and the cursor now: from here on a failure is the last line
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            TableReader.Result result;
            try {
                result = reader.read(topic, vector, r -> {
                    line.reset();
                    try (JsonGenerator g = JSON.createGenerator(ObjectWriteContext.empty(), line)) {
                        RecordJson.writeConsumed(g, r);
                    }
                    line.write('\n');
                    line.writeTo(out);
                    return true;
                });
            } catch (ProblemException e) {
                metrics.error(e.type());
                out.write(json.writeValueAsBytes(Map.of("problem", Problem.of(e))));
                out.write('\n');
                out.flush();
                return;
            }
            metrics.consumed(topic, "table", result.records());
            out.write(TableJson.end(cursor, vector, result.records()));
            out.write('\n');
            out.flush();
        } catch (IOException clientGone) {
            log.debug("Table client of {} left: {}", topic, clientGone.toString());
        }
    }
}
