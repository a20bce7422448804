/**
 * Produce over HTTP: {@code POST /v1/topics/{topic}/records} and {@code
 * /v1/topics/{topic}/partitions/{p}/records}. Shared {@code KafkaProducer}s, one per {@code acks}
 * level for single-record requests and one for requests of more records, with larger batches
 * ({@link io.tributary.gateway.produce.Producers}), partition keys exactly as any Kafka producer
 * does. JSON and raw bodies are read whole (bounded by {@code max-body-size}), validated
 * completely, then sent; NDJSON is read a line at a time with at most {@code ndjson-in-flight}
 * records awaiting their result, and results are written back in order as they complete, so memory
 * stays bounded whatever the body's length. A JSON or raw produce with an {@code Idempotency-Key}
 * is validated completely, then claimed in the idempotency log ({@code
 * io.tributary.gateway.idempotency}) and done at most once per key and topic across every replica;
 * its answer is stored and replayed byte for byte. NDJSON takes no key (400).
 */
package io.tributary.gateway.produce;
