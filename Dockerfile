# syntax=docker/dockerfile:1
# One image per Tributary service, from source:
#
#   docker build --build-arg SERVICE=broker      -t tributary/broker:dev .
#   docker build --build-arg SERVICE=coordinator -t tributary/coordinator:dev .
#   docker build --build-arg SERVICE=gateway     -t tributary/gateway:dev .
#
# Stages: build (JDK 25, ./mvnw packages the service's Spring Boot jar), extract (the jar's layers:
# dependencies change rarely, the application on every commit, so pushes and pulls move little),
# runtime (JRE 25, non-root, no build tools). The process runs as uid 10001, the uid the Helm chart's
# securityContext expects; it writes only to /var/lib/tributary (data) and /tmp.

ARG JDK_IMAGE=eclipse-temurin:25-jdk
ARG JRE_IMAGE=eclipse-temurin:25-jre

FROM ${JDK_IMAGE} AS build
ARG SERVICE
WORKDIR /src
# The wrapper and POMs first: the dependency download is cached until a POM changes.
COPY .mvn/ .mvn/
COPY mvnw pom.xml ./
COPY common/pom.xml common/
COPY kafka-peer/pom.xml kafka-peer/
COPY broker-service/pom.xml broker-service/
COPY coordinator-service/pom.xml coordinator-service/
COPY gateway-service/pom.xml gateway-service/
COPY system-tests/pom.xml system-tests/
RUN case "${SERVICE}" in broker|coordinator|gateway) ;; \
      *) echo "build with --build-arg SERVICE=broker|coordinator|gateway (got '${SERVICE}')" >&2; exit 1 ;; esac
# Best effort: warms the dependency cache (the reactor's own modules cannot resolve yet).
RUN ./mvnw -B -q -pl "${SERVICE}-service" -am dependency:go-offline -DexcludeReactor=true || true
COPY common/src/ common/src/
COPY broker-service/src/ broker-service/src/
COPY coordinator-service/src/ coordinator-service/src/
COPY gateway-service/src/ gateway-service/src/
RUN ./mvnw -B -q -pl "${SERVICE}-service" -am -DskipTests -Dspotless.check.skip=true package \
 && cp "${SERVICE}-service/target/tributary-${SERVICE}.jar" /src/application.jar

FROM ${JDK_IMAGE} AS extract
WORKDIR /extract
COPY --from=build /src/application.jar application.jar
RUN java -Djarmode=tools -jar application.jar extract --layers --destination layers

FROM ${JRE_IMAGE} AS runtime
ARG SERVICE
LABEL org.opencontainers.image.title="tributary-${SERVICE}" \
      org.opencontainers.image.description="Tributary ${SERVICE}: a replicated event log that speaks the Kafka protocol and HTTP/SSE" \
      org.opencontainers.image.licenses="Apache-2.0"
RUN case "${SERVICE}" in broker) port=8081 ;; coordinator) port=8091 ;; *) port=8080 ;; esac \
 && mkdir -p /app && echo "$port" > /app/default-http-port \
 && groupadd --system --gid 10001 tributary \
 && useradd --system --uid 10001 --gid tributary --home-dir /var/lib/tributary --shell /usr/sbin/nologin tributary \
 && mkdir -p /var/lib/tributary /etc/tributary \
 && chown tributary:tributary /var/lib/tributary
WORKDIR /app
# Least-changing layer first.
COPY --from=extract /extract/layers/dependencies/ ./
COPY --from=extract /extract/layers/spring-boot-loader/ ./
COPY --from=extract /extract/layers/snapshot-dependencies/ ./
COPY --from=extract /extract/layers/application/ ./
# In a container every listener binds all interfaces; data goes to the volume at /var/lib/tributary;
# configuration files mounted at /etc/tributary are read if present.
ENV SERVER_ADDRESS=0.0.0.0 \
    TRIBUTARY_KAFKA_HOST=0.0.0.0 \
    TRIBUTARY_COORDINATOR_RAFT_HOST=0.0.0.0 \
    TRIBUTARY_BROKER_DATA_DIR=/var/lib/tributary/broker \
    TRIBUTARY_COORDINATOR_DATA_DIR=/var/lib/tributary/coordinator \
    SPRING_CONFIG_ADDITIONAL_LOCATION=optional:file:/etc/tributary/
USER 10001:10001
VOLUME ["/var/lib/tributary"]
# Readiness through the actuator on SERVER_PORT (else the service's default), without curl: bash's /dev/tcp.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${SERVER_PORT:-$(cat /app/default-http-port)} && printf 'GET /actuator/health/readiness HTTP/1.0\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]
# RocksDB loads a native library; Ratis's shaded Netty uses Unsafe memory access (JDK 23+ asks for
# both to be allowed). More JVM options come from JDK_JAVA_OPTIONS (the Helm chart's jvmOptions).
ENTRYPOINT ["java", "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow", "-jar", "/app/application.jar"]
