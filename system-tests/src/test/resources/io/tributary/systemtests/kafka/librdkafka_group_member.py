#!/usr/bin/python3
"""A consumer-group member in librdkafka (Debian's python3-confluent-kafka), for the system tests.

Usage: librdkafka_group_member.py NAME BOOTSTRAP_SERVERS GROUP TOPIC SESSION_TIMEOUT_MS HEARTBEAT_MS

The same member as the Java GroupMember of io.tributary.systemtests.kafka, spoken through another
client library: the classic group protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup) with the
"range" assignor (the one librdkafka and the Java RangeAssignor share), manual commits, from the
beginning. It loops: consume up to 200 records for 0.2 s, report each, commit synchronously the next
offset of each partition it read from and has not committed yet (what a failed commit left is
committed again after the next consume, for the partitions it still owns). NAME is its client.id.

Standard output carries the events ChildGroupMember.java reads, one a line after the marker "@@ ":
    A 0,3,7          assigned partitions   (callback: waits for "ok" on standard input)
    R 0,3            revoked partitions    (callback: waits for "ok" on standard input)
    L 7              lost partitions       (callback: waits for "ok" on standard input)
    D 3 41 1207      delivered: partition, offset, value (the record's value, decimal text)
    C 3=42,7=10      committed: partition=next offset,...
    F 3=42 error     commit failed
An empty assignment or revocation is not reported. "leave" on standard input (or its end) makes the
member close its consumer (the revocation callback, then LeaveGroup) and exit with 0. Anything that
goes wrong otherwise ends it with a traceback on standard error and a non-zero exit code.
"""

import queue
import sys
import threading

from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition

MARKER = "@@ "

# How long a callback waits for the test's acknowledgement: Clients.PATIENCE.
ACK_TIMEOUT_S = 90

# One consume call: at most this many records, waiting at most this long (GroupMember's poll).
BATCH_RECORDS = 200
BATCH_TIMEOUT_S = 0.2


def main(argv):
    name, bootstrap, group, topic, session_ms, heartbeat_ms = argv[1:7]
    acks = queue.Queue()
    leaving = threading.Event()

    def read_input():
        for line in sys.stdin:
            line = line.strip()
            if line == "leave":
                leaving.set()
            else:
                acks.put(line)
        # The test is gone: leave.
        leaving.set()

    threading.Thread(target=read_input, daemon=True).start()

    def emit(line):
        sys.stdout.write(MARKER + line + "\n")
        sys.stdout.flush()

    # partition -> next offset of what it read and has not committed, of partitions it owns
    uncommitted = {}

    def callback(kind):
        def report(consumer, partitions):
            if kind != "A":
                for tp in partitions:
                    uncommitted.pop(tp.partition, None)
            if not partitions:
                return
            emit(kind + " " + ",".join(str(p) for p in sorted(tp.partition for tp in partitions)))
            try:
                ack = acks.get(timeout=ACK_TIMEOUT_S)
            except queue.Empty:
                ack = None
            if ack != "ok":
                raise RuntimeError("no acknowledgement of %s %s from the test: %r" % (kind, partitions, ack))

        return report

    consumer = Consumer({
        "bootstrap.servers": bootstrap,
        "client.id": name,
        "group.id": group,
        "partition.assignment.strategy": "range",
        "session.timeout.ms": int(session_ms),
        "heartbeat.interval.ms": int(heartbeat_ms),
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
    })
    consumer.subscribe([topic], on_assign=callback("A"), on_revoke=callback("R"), on_lost=callback("L"))
    while not leaving.is_set():
        records = consumer.consume(num_messages=BATCH_RECORDS, timeout=BATCH_TIMEOUT_S)
        for record in records:
            if record.error() is not None:
                if record.error().code() == KafkaError._PARTITION_EOF:
                    continue
                raise KafkaException(record.error())
            emit("D %d %d %d" % (record.partition(), record.offset(), int(record.value().decode("utf-8"))))
            uncommitted[record.partition()] = record.offset() + 1
        owned = {tp.partition for tp in consumer.assignment()}
        for partition in [p for p in uncommitted if p not in owned]:
            del uncommitted[partition]
        if not uncommitted:
            continue
        offsets = ",".join("%d=%d" % (p, o) for p, o in sorted(uncommitted.items()))
        try:
            answers = consumer.commit(
                offsets=[TopicPartition(topic, p, o) for p, o in sorted(uncommitted.items())],
                asynchronous=False)
            errors = [str(tp.error) for tp in answers if tp.error is not None]
            if errors:
                emit("F %s %s" % (offsets, "; ".join(errors)))
            else:
                emit("C " + offsets)
                uncommitted.clear()
        except KafkaException as e:
            emit("F %s %s" % (offsets, str(e).replace("\n", " ")))
    consumer.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
