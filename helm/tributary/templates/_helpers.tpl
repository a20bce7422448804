{{/*
Names, labels and the addresses the components give each other. Every template builds names and
addresses through these helpers, so a component's Service name and the address another component
dials cannot drift apart.
*/}}

{{/* The chart name, or nameOverride. */}}
{{- define "tributary.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Release-qualified name, at most 40 characters so that component suffixes and pod ordinals fit DNS labels. */}}
{{- define "tributary.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* chart-version, for the helm.sh/chart label. */}}
{{- define "tributary.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels on every resource. */}}
{{- define "tributary.labels" -}}
helm.sh/chart: {{ include "tributary.chart" . }}
app.kubernetes.io/name: {{ include "tributary.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: tributary
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Selector labels of one component. Usage: include "tributary.selectorLabels" (dict "root" . "component" "broker") */}}
{{- define "tributary.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tributary.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* All labels of one component. */}}
{{- define "tributary.componentLabels" -}}
{{ include "tributary.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* metadata.annotations of a resource with commonAnnotations plus extras. Usage: include "tributary.annotations" (dict "root" . "extra" .Values.x) */}}
{{- define "tributary.annotations" -}}
{{- $all := merge (dict) (default (dict) .extra) (default (dict) .root.Values.commonAnnotations) -}}
{{- with $all }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/* Name of one component's resources: <fullname>-<component>. */}}
{{- define "tributary.componentName" -}}
{{- printf "%s-%s" (include "tributary.fullname" .root) .component -}}
{{- end -}}

{{/* The headless Service of a StatefulSet component: its pods' DNS names live under it. */}}
{{- define "tributary.headlessName" -}}
{{- printf "%s-%s-headless" (include "tributary.fullname" .root) .component -}}
{{- end -}}

{{/* The DNS name of pod <ordinal> of a StatefulSet component. Usage: include "tributary.podAddress" (dict "root" . "component" "coordinator" "ordinal" 0) */}}
{{- define "tributary.podAddress" -}}
{{- printf "%s-%d.%s.%s.svc.%s" (include "tributary.componentName" .) (int .ordinal) (include "tributary.headlessName" .) .root.Release.Namespace .root.Values.clusterDomain -}}
{{- end -}}

{{/* Comma-separated host:port of every pod of a component. Usage: include "tributary.podAddresses" (dict "root" . "component" "broker" "replicas" 3 "port" 9092) */}}
{{- define "tributary.podAddresses" -}}
{{- $addresses := list -}}
{{- range $i := until (int .replicas) -}}
{{- $addresses = append $addresses (printf "%s:%d" (include "tributary.podAddress" (dict "root" $.root "component" $.component "ordinal" $i)) (int $.port)) -}}
{{- end -}}
{{- join "," $addresses -}}
{{- end -}}

{{/* tributary.coordinator.peers: every coordinator's Raft address, in id (= ordinal) order. */}}
{{- define "tributary.coordinator.peers" -}}
{{- include "tributary.podAddresses" (dict "root" . "component" "coordinator" "replicas" .Values.coordinator.replicas "port" .Values.coordinator.containerPorts.raft) -}}
{{- end -}}

{{/* tributary.coordinator.kafkaPeers: every coordinator's Kafka address (headless-service DNS names), in id order: FindCoordinator answers with the leader's. */}}
{{- define "tributary.coordinator.kafkaPeers" -}}
{{- include "tributary.podAddresses" (dict "root" . "component" "coordinator" "replicas" .Values.coordinator.replicas "port" .Values.coordinator.containerPorts.kafka) -}}
{{- end -}}

{{/* tributary.coordinator.http-peers: every coordinator's control-plane host:port, in id order (a follower redirects writes to the leader's, over the scheme the call came in on). */}}
{{- define "tributary.coordinator.httpPeers" -}}
{{- include "tributary.podAddresses" (dict "root" . "component" "coordinator" "replicas" .Values.coordinator.replicas "port" .Values.coordinator.containerPorts.http) -}}
{{- end -}}

{{/* tributary.broker.coordinators: every coordinator's control-plane address, `https://host:port` each when the coordinators serve HTTPS. */}}
{{- define "tributary.broker.coordinators" -}}
{{- $addresses := include "tributary.coordinator.httpPeers" . -}}
{{- if include "tributary.security.coordinatorHttps" . -}}
{{- $addresses = printf "https://%s" (join ",https://" (splitList "," $addresses)) -}}
{{- end -}}
{{- $addresses -}}
{{- end -}}

{{/* The port of the brokers' internal listener (tributary.kafka.port): containerPorts.internal when secured, else the one Kafka port. */}}
{{- define "tributary.broker.internalPort" -}}
{{- ternary .Values.broker.containerPorts.internal .Values.broker.containerPorts.kafka .Values.security.enabled -}}
{{- end -}}

{{/* tributary.gateway.bootstrap-servers: every broker's internal Kafka address (the gateway logs in there when secured). */}}
{{- define "tributary.gateway.bootstrapServers" -}}
{{- include "tributary.podAddresses" (dict "root" . "component" "broker" "replicas" .Values.broker.replicas "port" (include "tributary.broker.internalPort" .)) -}}
{{- end -}}

{{/* The image of a component: [registry/]repository:tag. Usage: include "tributary.image" (dict "root" . "image" .Values.broker.image) */}}
{{- define "tributary.image" -}}
{{- $tag := .image.tag | default .root.Values.image.tag | default .root.Chart.AppVersion -}}
{{- if .root.Values.image.registry -}}
{{- printf "%s/%s:%s" .root.Values.image.registry .image.repository $tag -}}
{{- else -}}
{{- printf "%s:%s" .image.repository $tag -}}
{{- end -}}
{{- end -}}

{{- define "tributary.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "tributary.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* imagePullSecrets of a pod spec. */}}
{{- define "tributary.imagePullSecrets" -}}
{{- with .Values.image.pullSecrets }}
imagePullSecrets:
{{- range . }}
  - name: {{ . }}
{{- end }}
{{- end }}
{{- end -}}

{{/* Affinity of a component: its own affinity if set, else the anti-affinity preset over node host names. Usage: include "tributary.affinity" (dict "root" . "component" "broker" "values" .Values.broker) */}}
{{- define "tributary.affinity" -}}
{{- if .values.affinity -}}
affinity:
  {{- toYaml .values.affinity | nindent 2 }}
{{- else if eq .values.podAntiAffinityPreset "hard" -}}
affinity:
  podAntiAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      - topologyKey: kubernetes.io/hostname
        labelSelector:
          matchLabels:
            {{- include "tributary.selectorLabels" . | nindent 12 }}
{{- else if eq .values.podAntiAffinityPreset "soft" -}}
affinity:
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels:
              {{- include "tributary.selectorLabels" . | nindent 14 }}
{{- end -}}
{{- end -}}

{{/* Scheduling fields shared by the components' pod specs. */}}
{{- define "tributary.scheduling" -}}
{{- include "tributary.affinity" . }}
{{- with .values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- end -}}

{{/* Pod annotations: scrape annotations, a checksum of the component's config (a change rolls the pods), extras. Usage: include "tributary.podAnnotations" (dict "root" . "values" .Values.broker "port" 8081 "config" "...") */}}
{{- define "tributary.podAnnotations" -}}
{{- $annotations := dict "checksum/config" (.config | sha256sum) -}}
{{- if .root.Values.metrics.podAnnotations -}}
{{- $_ := set $annotations "prometheus.io/scrape" "true" -}}
{{- $_ := set $annotations "prometheus.io/path" "/actuator/prometheus" -}}
{{- $_ := set $annotations "prometheus.io/port" (toString .port) -}}
{{- if .https -}}
{{- $_ := set $annotations "prometheus.io/scheme" "https" -}}
{{- end -}}
{{- end -}}
{{- $annotations = merge $annotations (default (dict) .values.podAnnotations) -}}
annotations:
  {{- toYaml $annotations | nindent 2 }}
{{- end -}}

{{/* The application.yaml of a component's ConfigMap: its `config` map, or a comment when empty. */}}
{{- define "tributary.applicationYaml" -}}
{{- if .values.config -}}
{{- toYaml .values.config -}}
{{- else -}}
# Empty: set {{ .component }}.config in the chart values to add Spring Boot configuration.
{{- end -}}
{{- end -}}

{{/* Environment shared by every component: bind on all interfaces, the instance tag, the JVM options, the config file. */}}
{{- define "tributary.commonEnv" -}}
- name: SERVER_ADDRESS
  value: 0.0.0.0
- name: SERVER_PORT
  value: {{ .values.containerPorts.http | quote }}
- name: TRIBUTARY_INSTANCE
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: JDK_JAVA_OPTIONS
  value: {{ .values.jvmOptions | quote }}
- name: SPRING_CONFIG_ADDITIONAL_LOCATION
  value: optional:file:/etc/tributary/
{{- end -}}

{{/* Volume mounts shared by every component: the config file and a writable /tmp (the root filesystem is read-only; RocksDB unpacks its library there). */}}
{{- define "tributary.commonVolumeMounts" -}}
- name: config
  mountPath: /etc/tributary
  readOnly: true
- name: tmp
  mountPath: /tmp
{{- end -}}

{{/* Probes on the actuator's liveness and readiness groups, over HTTPS with "https" true (the kubelet does not verify the certificate). Usage: include "tributary.probes" (dict "probes" .Values.broker.probes) */}}
{{- define "tributary.probes" -}}
startupProbe:
  httpGet:
    path: /actuator/health/liveness
    port: http
    {{- if .https }}
    scheme: HTTPS
    {{- end }}
  periodSeconds: {{ .probes.startup.periodSeconds }}
  failureThreshold: {{ .probes.startup.failureThreshold }}
  timeoutSeconds: 3
livenessProbe:
  httpGet:
    path: /actuator/health/liveness
    port: http
    {{- if .https }}
    scheme: HTTPS
    {{- end }}
  periodSeconds: {{ .probes.liveness.periodSeconds }}
  failureThreshold: {{ .probes.liveness.failureThreshold }}
  timeoutSeconds: 3
readinessProbe:
  httpGet:
    path: /actuator/health/readiness
    port: http
    {{- if .https }}
    scheme: HTTPS
    {{- end }}
  periodSeconds: {{ .probes.readiness.periodSeconds }}
  failureThreshold: {{ .probes.readiness.failureThreshold }}
  timeoutSeconds: 3
{{- end -}}

{{/* The Kafka-protocol listener (tributary.kafka.*): bind address, port and bounds. Usage: include "tributary.kafkaListenerEnv" (dict "port" 9092 "kafka" .Values.broker.kafka) */}}
{{- define "tributary.kafkaListenerEnv" -}}
- name: TRIBUTARY_KAFKA_HOST
  value: 0.0.0.0
- name: TRIBUTARY_KAFKA_PORT
  value: {{ .port | quote }}
- name: TRIBUTARY_KAFKA_MAX_FRAME_SIZE
  value: {{ .kafka.maxFrameSize | quote }}
- name: TRIBUTARY_KAFKA_MAX_CONNECTIONS
  value: {{ .kafka.maxConnections | quote }}
- name: TRIBUTARY_KAFKA_MAX_IN_FLIGHT_REQUEST_SIZE
  value: {{ .kafka.maxInFlightRequestSize | quote }}
- name: TRIBUTARY_KAFKA_IDLE_TIMEOUT
  value: {{ .kafka.idleTimeout | quote }}
- name: TRIBUTARY_KAFKA_SHUTDOWN_TIMEOUT
  value: {{ .kafka.shutdownTimeout | quote }}
- name: TRIBUTARY_KAFKA_CONNECTION_THREADS
  value: {{ .kafka.connectionThreads | quote }}
{{- end -}}

{{/* A Spring Boot simple-format duration ("500ms", "45s", "15m"; the schema's pattern) in whole milliseconds, rounded down. Usage: include "tributary.durationMillis" "45s" */}}
{{- define "tributary.durationMillis" -}}
{{- $pattern := "^([0-9]+)(ns|us|ms|s|m|h|d)$" -}}
{{- if not (regexMatch $pattern .) -}}
{{- fail (printf "%q is not a duration such as 500ms, 45s or 15m" .) -}}
{{- end -}}
{{- $amount := atoi (regexReplaceAll $pattern . "${1}") -}}
{{- $unit := regexReplaceAll $pattern . "${2}" -}}
{{- $perUnit := dict "ms" 1 "s" 1000 "m" 60000 "h" 3600000 "d" 86400000 -}}
{{- if eq $unit "ns" -}}
{{- div $amount 1000000 -}}
{{- else if eq $unit "us" -}}
{{- div $amount 1000 -}}
{{- else -}}
{{- mul $amount (get $perUnit $unit) -}}
{{- end -}}
{{- end -}}

{{/* Whole seconds a duration takes, rounded up. Usage: include "tributary.durationSeconds" "500ms" */}}
{{- define "tributary.durationSeconds" -}}
{{- div (add (atoi (include "tributary.durationMillis" .)) 999) 1000 -}}
{{- end -}}

{{/* The external listener's advertised address of every broker, "host:port,host:port,..." (entry i for broker i; tributary.broker.external-listener.advertised-addresses): broker.external.advertisedAddresses as given, or advertisedHost with {ordinal} replaced and the port clients reach broker i on (NodePort: nodePortBase + i; LoadBalancer: port). Fails when neither is set or there are fewer addresses than brokers. Usage: include "tributary.broker.externalAdvertisedAddresses" . */}}
{{- define "tributary.broker.externalAdvertisedAddresses" -}}
{{- $external := .Values.broker.external -}}
{{- $replicas := int .Values.broker.replicas -}}
{{- if $external.advertisedAddresses -}}
{{- if lt (len $external.advertisedAddresses) $replicas -}}
{{- fail (printf "broker.external.advertisedAddresses has %d entries, broker.replicas is %d: one host:port per broker, entry i for broker i" (len $external.advertisedAddresses) $replicas) -}}
{{- end -}}
{{- join "," $external.advertisedAddresses -}}
{{- else if $external.advertisedHost -}}
{{- $addresses := list -}}
{{- range $i := until $replicas -}}
{{- $port := ternary (add $external.nodePortBase $i) $external.port (eq $external.type "NodePort") -}}
{{- $addresses = append $addresses (printf "%s:%v" (replace "{ordinal}" (toString $i) $external.advertisedHost) $port) -}}
{{- end -}}
{{- join "," $addresses -}}
{{- else -}}
{{- fail "broker.external.enabled needs broker.external.advertisedHost or broker.external.advertisedAddresses: the address clients outside the cluster reach each broker at, which the brokers advertise to them" -}}
{{- end -}}
{{- end -}}

{{/* The hosts of the external listener's advertised addresses, each once, "host,host,..." (IPv6 without brackets): what the brokers' certificate must name when the external listener speaks TLS. Usage: include "tributary.broker.externalHosts" . */}}
{{- define "tributary.broker.externalHosts" -}}
{{- $hosts := list -}}
{{- range $address := splitList "," (include "tributary.broker.externalAdvertisedAddresses" .) -}}
{{- $parts := splitList ":" $address -}}
{{- $host := join ":" (initial $parts) | trimPrefix "[" | trimSuffix "]" -}}
{{- $hosts = append $hosts $host -}}
{{- end -}}
{{- join "," ($hosts | uniq) -}}
{{- end -}}
