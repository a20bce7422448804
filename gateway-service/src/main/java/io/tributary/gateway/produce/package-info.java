/**
 * Produce over HTTP: {@code POST /v1/topics/{topic}/records} and {@code
 * /v1/topics/{topic}/partitions/{p}/records}. One shared {@code KafkaProducer} per {@code acks}
 * level ({@link io.tributary.gateway.produce.Producers}) partitions keys exactly as any Kafka
 * producer does. JSON and raw bodies are read whole (bounded by {@code max-body-size}), validated
 * completely, then sent; NDJSON is read a line at a time with at most {@code ndjson-in-flight}
 * records awaiting their result, and results are written back in order as they complete, so memory
 * stays bounded whatever the body's length.
 */
package io.tributary.gateway.produce;
