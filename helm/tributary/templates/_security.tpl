{{/*
Kafka-side security (values `security.*`, docs/security.md "Kubernetes"): which Secrets the pods
mount, where, and the settings that point the services at them. Every Secret is a file under
/etc/tributary-secrets/<volume>/ (mode 0440: root-owned, readable by the pods' fsGroup), never a
command-line argument or a literal environment value: the services read the cluster secret and
the TLS files by path, and the passwords through Spring Boot's config tree
(`spring.config.import=configtree:<dir>/`: each file is a property named after it, which the
environment refers to as ${tributary.secrets.<name>}).
*/}}

{{/* Where the Secrets are mounted. */}}
{{- define "tributary.security.dir" -}}/etc/tributary-secrets{{- end -}}

{{/* Mode of every mounted Secret file: 0440. */}}
{{- define "tributary.security.fileMode" -}}288{{- end -}}

{{/* The protocol of the brokers' client listener: security.clientProtocol, else SASL_SSL with a TLS source and SASL_PLAINTEXT without. */}}
{{- define "tributary.security.clientProtocol" -}}
{{- $security := .Values.security -}}
{{- if $security.clientProtocol -}}
{{- $security.clientProtocol -}}
{{- else if include "tributary.security.tlsSecretName" . -}}
SASL_SSL
{{- else -}}
SASL_PLAINTEXT
{{- end -}}
{{- end -}}

{{/* "true" when the client listener speaks TLS, empty otherwise. */}}
{{- define "tributary.security.clientTls" -}}
{{- if has (include "tributary.security.clientProtocol" .) (list "SSL" "SASL_SSL") -}}true{{- end -}}
{{- end -}}

{{/* "true" when the client listener asks for a SASL login, empty otherwise. */}}
{{- define "tributary.security.clientSasl" -}}
{{- if has (include "tributary.security.clientProtocol" .) (list "SASL_PLAINTEXT" "SASL_SSL") -}}true{{- end -}}
{{- end -}}

{{/* The protocol of the brokers' external listener (broker.external.enabled): broker.external.securityProtocol, else SASL_SSL with security.enabled and PLAINTEXT without; empty when there is no external listener. */}}
{{- define "tributary.security.externalProtocol" -}}
{{- $external := .Values.broker.external -}}
{{- if $external.enabled -}}
{{- if $external.securityProtocol -}}
{{- $external.securityProtocol -}}
{{- else if .Values.security.enabled -}}
SASL_SSL
{{- else -}}
PLAINTEXT
{{- end -}}
{{- end -}}
{{- end -}}

{{/* "true" when the external listener speaks TLS, empty otherwise. */}}
{{- define "tributary.security.externalTls" -}}
{{- if has (include "tributary.security.externalProtocol" .) (list "SSL" "SASL_SSL") -}}true{{- end -}}
{{- end -}}

{{/* "true" when the external listener asks for a SASL login, empty otherwise. */}}
{{- define "tributary.security.externalSasl" -}}
{{- if has (include "tributary.security.externalProtocol" .) (list "SASL_PLAINTEXT" "SASL_SSL") -}}true{{- end -}}
{{- end -}}

{{/* "true" when a Kafka listener of the brokers (client or external) speaks TLS, so they mount the TLS Secret; empty otherwise. */}}
{{- define "tributary.security.brokerKafkaTls" -}}
{{- if and .Values.security.enabled (or (include "tributary.security.clientTls" .) (include "tributary.security.externalTls" .)) -}}true{{- end -}}
{{- end -}}

{{/* "true" when the coordinators serve HTTPS, empty otherwise. */}}
{{- define "tributary.security.coordinatorHttps" -}}
{{- if and .Values.security.enabled .Values.security.coordinatorHttps.enabled -}}true{{- end -}}
{{- end -}}

{{/* "true" when the coordinators' Raft port has mutual TLS, empty otherwise. */}}
{{- define "tributary.security.raftTls" -}}
{{- if and .Values.security.enabled .Values.security.raftTls.enabled -}}true{{- end -}}
{{- end -}}

{{/* "true" when the internal Kafka listeners (the brokers' internal one, the coordinators') are SASL_SSL: security.internalTls.enabled with a TLS source; empty otherwise. */}}
{{- define "tributary.security.internalTls" -}}
{{- if and .Values.security.enabled .Values.security.internalTls.enabled (include "tributary.security.tlsSecretName" .) -}}true{{- end -}}
{{- end -}}

{{/* "true" when the coordinators mount the TLS Secret (HTTPS, Raft TLS or internal TLS), empty otherwise. */}}
{{- define "tributary.security.coordinatorTls" -}}
{{- if or (include "tributary.security.coordinatorHttps" .) (include "tributary.security.raftTls" .) (include "tributary.security.internalTls" .) -}}true{{- end -}}
{{- end -}}

{{/* The TLS settings of a process's own Kafka listener (tributary.kafka.ssl.*) when the internal listeners are TLS: the TLS Secret's key and chain, and its ca.crt as the cluster's CA that the process's internal clients trust. */}}
{{- define "tributary.security.internalTlsEnv" -}}
{{- if include "tributary.security.internalTls" . }}
{{- $dir := include "tributary.security.dir" . }}
# The internal Kafka listener is SASL_SSL; this process's internal clients trust ca.crt and check host names.
- name: TRIBUTARY_KAFKA_SSL_KEYSTORE_TYPE
  value: PEM
- name: TRIBUTARY_KAFKA_SSL_KEYSTORE_LOCATION
  value: {{ printf "%s/tls/tls.key" $dir | quote }}
- name: TRIBUTARY_KAFKA_SSL_KEYSTORE_CERTIFICATE_CHAIN_LOCATION
  value: {{ printf "%s/tls/tls.crt" $dir | quote }}
- name: TRIBUTARY_KAFKA_SSL_TRUSTSTORE_TYPE
  value: PEM
- name: TRIBUTARY_KAFKA_SSL_TRUSTSTORE_LOCATION
  value: {{ printf "%s/tls/ca.crt" $dir | quote }}
{{- end }}
{{- end -}}

{{/* Volume of the TLS Secret's ca.crt alone (the gateway trusts it on the brokers' internal listeners). */}}
{{- define "tributary.security.caVolume" -}}
- name: tls-ca
  secret:
    secretName: {{ include "tributary.security.tlsSecretName" . }}
    defaultMode: {{ include "tributary.security.fileMode" . }}
    items:
      - key: ca.crt
        path: ca.crt
{{- end -}}

{{/* The Secret holding tls.crt, tls.key and ca.crt: security.tls.existingSecret, or the one the chart's Certificate fills; empty without a TLS source. */}}
{{- define "tributary.security.tlsSecretName" -}}
{{- $tls := .Values.security.tls -}}
{{- if $tls.existingSecret -}}
{{- $tls.existingSecret -}}
{{- else if $tls.certManager.enabled -}}
{{- printf "%s-tls" (include "tributary.fullname" .) -}}
{{- end -}}
{{- end -}}

{{/* The Secret holding the cluster secret, and its key. */}}
{{- define "tributary.security.clusterSecretName" -}}
{{- default (printf "%s-cluster-secret" (include "tributary.fullname" .)) .Values.security.clusterSecret.existingSecret -}}
{{- end -}}
{{- define "tributary.security.clusterSecretKey" -}}
{{- ternary .Values.security.clusterSecret.key "cluster.secret" (not (empty .Values.security.clusterSecret.existingSecret)) -}}
{{- end -}}

{{/* The Secret the chart generates for passwords nobody supplied (the admin's, the gateway's). */}}
{{- define "tributary.security.usersSecretName" -}}
{{- printf "%s-users" (include "tributary.fullname" .) -}}
{{- end -}}

{{/* Keys of the generated users Secret, one per password not taken from an existing Secret; empty when every password is supplied. */}}
{{- define "tributary.security.generatedUserKeys" -}}
{{- $keys := list -}}
{{- if not .Values.security.users.existingSecret -}}{{- $keys = append $keys "admin-password" -}}{{- end -}}
{{- if not .Values.security.gateway.existingSecret -}}{{- $keys = append $keys "gateway-password" -}}{{- end -}}
{{- join "," $keys -}}
{{- end -}}

{{/*
The data of a Secret the chart generates: each key keeps the value of the Secret of that name
already in the cluster (so `helm upgrade` never changes it), or gets a new random one (48
characters). `helm template` and `--dry-run` see no cluster and always generate. Usage:
include "tributary.security.generatedData" (dict "root" . "name" "x-users" "keys" (list "a" "b"))
*/}}
{{- define "tributary.security.generatedData" -}}
{{- $existing := lookup "v1" "Secret" .root.Release.Namespace .name | default dict -}}
{{- $data := get $existing "data" | default dict -}}
{{- $out := dict -}}
{{- range $key := .keys -}}
{{- $_ := set $out $key (get $data $key | default (randAlphaNum 48 | b64enc)) -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{/* The principals allowed everything: the admin, the gateway, security.authorization.superUsers. */}}
{{- define "tributary.security.superUsers" -}}
{{- $security := .Values.security -}}
{{- $users := list (printf "User:%s" $security.users.adminUsername) (printf "User:%s" $security.gateway.username) -}}
{{- join ";" (concat $users $security.authorization.superUsers | uniq) -}}
{{- end -}}

{{/* Volume mount of the cluster secret (coordinators and brokers). */}}
{{- define "tributary.security.clusterSecretMount" -}}
- name: cluster-secret
  mountPath: {{ include "tributary.security.dir" . }}/cluster
  readOnly: true
{{- end -}}

{{/* Volume of the cluster secret: its key as the file cluster.secret. */}}
{{- define "tributary.security.clusterSecretVolume" -}}
- name: cluster-secret
  secret:
    secretName: {{ include "tributary.security.clusterSecretName" . }}
    defaultMode: {{ include "tributary.security.fileMode" . }}
    items:
      - key: {{ include "tributary.security.clusterSecretKey" . }}
        path: cluster.secret
{{- end -}}

{{/*
The coordinators' volume of the cluster secret: their current secret as cluster.secret (during a
rotation security.clusterSecret.rotation.coordinatorExistingSecret's, else the brokers' one) and,
while a rotation is under way, the secret being rotated out as previous.secret.
*/}}
{{- define "tributary.security.coordinatorClusterSecretVolume" -}}
{{- $rotation := .Values.security.clusterSecret.rotation -}}
- name: cluster-secret
  projected:
    defaultMode: {{ include "tributary.security.fileMode" . }}
    sources:
      - secret:
          {{- if $rotation.coordinatorExistingSecret }}
          name: {{ $rotation.coordinatorExistingSecret }}
          items:
            - key: {{ $rotation.coordinatorKey }}
              path: cluster.secret
          {{- else }}
          name: {{ include "tributary.security.clusterSecretName" . }}
          items:
            - key: {{ include "tributary.security.clusterSecretKey" . }}
              path: cluster.secret
          {{- end }}
      {{- if $rotation.previousExistingSecret }}
      - secret:
          name: {{ $rotation.previousExistingSecret }}
          items:
            - key: {{ $rotation.previousKey }}
              path: previous.secret
      {{- end }}
{{- end -}}

{{/* Volume mount of the TLS Secret. */}}
{{- define "tributary.security.tlsMount" -}}
- name: tls
  mountPath: {{ include "tributary.security.dir" . }}/tls
  readOnly: true
{{- end -}}

{{/* Volume of the TLS Secret: tls.crt, tls.key, ca.crt. */}}
{{- define "tributary.security.tlsVolume" -}}
- name: tls
  secret:
    secretName: {{ include "tributary.security.tlsSecretName" . }}
    defaultMode: {{ include "tributary.security.fileMode" . }}
    items:
      - key: tls.crt
        path: tls.crt
      - key: tls.key
        path: tls.key
      - key: ca.crt
        path: ca.crt
{{- end -}}

{{/*
A projected volume of passwords, each a file named after the property it becomes through the
config tree (tributary.secrets.<name>). Usage: include "tributary.security.passwordsVolume"
(dict "root" . "name" "users" "passwords" (list "admin-password" "gateway-password"))
*/}}
{{- define "tributary.security.passwordsVolume" -}}
{{- $security := .root.Values.security -}}
{{- $generated := include "tributary.security.usersSecretName" .root -}}
{{- $sources := dict -}}
{{- range $password := .passwords -}}
{{- $from := dict "secret" $generated "key" $password -}}
{{- if and (eq $password "admin-password") $security.users.existingSecret -}}
{{- $from = dict "secret" $security.users.existingSecret "key" $security.users.adminPasswordKey -}}
{{- else if and (eq $password "gateway-password") $security.gateway.existingSecret -}}
{{- $from = dict "secret" $security.gateway.existingSecret "key" $security.gateway.passwordKey -}}
{{- end -}}
{{- $items := get $sources $from.secret | default list -}}
{{- $_ := set $sources $from.secret (append $items (dict "key" $from.key "path" (printf "tributary.secrets.%s" $password))) -}}
{{- end -}}
- name: {{ .name }}
  projected:
    defaultMode: {{ include "tributary.security.fileMode" .root }}
    sources:
      {{- range $secret := keys $sources | sortAlpha }}
      - secret:
          name: {{ $secret }}
          items:
            {{- toYaml (get $sources $secret) | nindent 12 }}
      {{- end }}
{{- end -}}

{{/* Volume mount of a passwords volume, and the SPRING_CONFIG_IMPORT that reads it. Usage: include "tributary.security.passwordsMount" (dict "root" . "name" "users") */}}
{{- define "tributary.security.passwordsMount" -}}
- name: {{ .name }}
  mountPath: {{ include "tributary.security.dir" .root }}/{{ .name }}
  readOnly: true
{{- end -}}
{{- define "tributary.security.passwordsImportEnv" -}}
- name: SPRING_CONFIG_IMPORT
  value: {{ printf "configtree:%s/%s/" (include "tributary.security.dir" .root) .name | quote }}
{{- end -}}

{{/* The coordinators' security environment: the cluster secret, the bootstrap SCRAM users (the admin for every SCRAM mechanism of the client listener, the gateway with SCRAM-SHA-512), HTTPS. */}}
{{- define "tributary.security.coordinatorEnv" -}}
{{- $security := .Values.security -}}
{{- $dir := include "tributary.security.dir" . -}}
{{- include "tributary.security.passwordsImportEnv" (dict "root" . "name" "users") }}
- name: TRIBUTARY_COORDINATOR_CONTROL_SECRET_FILE
  value: {{ printf "%s/cluster/cluster.secret" $dir | quote }}
{{- if $security.clusterSecret.rotation.previousExistingSecret }}
- name: TRIBUTARY_COORDINATOR_CONTROL_PREVIOUS_SECRET_FILE
  value: {{ printf "%s/cluster/previous.secret" $dir | quote }}
{{- end }}
{{- $users := list -}}
{{- $scram := without $security.sasl.mechanisms "PLAIN" | default (list "SCRAM-SHA-512") -}}
{{- range $mechanism := $scram -}}
{{- $users = append $users (dict "name" $security.users.adminUsername "password" "admin-password" "mechanism" $mechanism) -}}
{{- end -}}
{{- $users = append $users (dict "name" $security.gateway.username "password" "gateway-password" "mechanism" "SCRAM-SHA-512") -}}
{{- range $i, $user := $users }}
- name: TRIBUTARY_COORDINATOR_SECURITY_BOOTSTRAPSCRAMUSERS_{{ $i }}_NAME
  value: {{ $user.name | quote }}
- name: TRIBUTARY_COORDINATOR_SECURITY_BOOTSTRAPSCRAMUSERS_{{ $i }}_PASSWORD
  value: {{ printf "${tributary.secrets.%s}" $user.password | quote }}
- name: TRIBUTARY_COORDINATOR_SECURITY_BOOTSTRAPSCRAMUSERS_{{ $i }}_MECHANISM
  value: {{ $user.mechanism | quote }}
{{- end }}
{{- if include "tributary.security.coordinatorHttps" . }}
{{- /* An SSL bundle that watches the files: a renewed certificate is served to new connections
       without a restart (server.ssl.certificate would be read at start only). */}}
- name: SERVER_SSL_BUNDLE
  value: "controlplane"
- name: SPRING_SSL_BUNDLE_PEM_CONTROLPLANE_KEYSTORE_CERTIFICATE
  value: {{ printf "%s/tls/tls.crt" $dir | quote }}
- name: SPRING_SSL_BUNDLE_PEM_CONTROLPLANE_KEYSTORE_PRIVATEKEY
  value: {{ printf "%s/tls/tls.key" $dir | quote }}
- name: SPRING_SSL_BUNDLE_PEM_CONTROLPLANE_RELOADONUPDATE
  value: "true"
{{- end }}
{{- if include "tributary.security.raftTls" . }}
- name: TRIBUTARY_COORDINATOR_RAFT_SSL_KEYSTORE_TYPE
  value: "PEM"
- name: TRIBUTARY_COORDINATOR_RAFT_SSL_KEYSTORE_LOCATION
  value: {{ printf "%s/tls/tls.key" $dir | quote }}
- name: TRIBUTARY_COORDINATOR_RAFT_SSL_CERTIFICATECHAIN
  value: {{ printf "%s/tls/tls.crt" $dir | quote }}
- name: TRIBUTARY_COORDINATOR_RAFT_SSL_TRUSTSTORE_TYPE
  value: "PEM"
- name: TRIBUTARY_COORDINATOR_RAFT_SSL_TRUSTSTORE_LOCATION
  value: {{ printf "%s/tls/ca.crt" $dir | quote }}
{{- end }}
{{- include "tributary.security.internalTlsEnv" . }}
{{- end -}}

{{/* The brokers' security environment: the cluster secret, the CLIENT listener and its advertised pod address, TLS, SASL, the authorizer. */}}
{{- define "tributary.security.brokerEnv" -}}
{{- $security := .Values.security -}}
{{- $dir := include "tributary.security.dir" . -}}
{{- $port := int .Values.broker.containerPorts.kafka -}}
{{- $protocol := include "tributary.security.clientProtocol" . -}}
- name: TRIBUTARY_BROKER_CLUSTER_SECRET_FILE
  value: {{ printf "%s/cluster/cluster.secret" $dir | quote }}
{{- if include "tributary.security.coordinatorHttps" . }}
- name: TRIBUTARY_BROKER_CLUSTER_SSL_TRUSTSTORE_LOCATION
  value: {{ printf "%s/tls/ca.crt" $dir | quote }}
{{- end }}
# Kafka clients: the CLIENT listener, advertised at this pod's DNS name.
- name: TRIBUTARY_BROKER_LISTENERS
  value: {{ printf "CLIENT://0.0.0.0:%d" $port | quote }}
- name: TRIBUTARY_BROKER_ADVERTISED_LISTENERS
  value: {{ printf "CLIENT://$(TRIBUTARY_INSTANCE).%s.%s.svc.%s:%d" (include "tributary.headlessName" (dict "root" . "component" "broker")) .Release.Namespace .Values.clusterDomain $port | quote }}
- name: TRIBUTARY_BROKER_LISTENER_SECURITY_PROTOCOL_MAP
  value: {{ printf "CLIENT:%s" $protocol | quote }}
{{- if or (include "tributary.security.clientSasl" .) (include "tributary.security.externalSasl" .) }}
# SASL mechanisms of every listener with SASL (client and external).
- name: TRIBUTARY_BROKER_SASL_ENABLED_MECHANISMS
  value: {{ join "," $security.sasl.mechanisms | quote }}
{{- end }}
{{- if include "tributary.security.brokerKafkaTls" . }}
# The certificate of every listener with TLS (client and external).
- name: TRIBUTARY_BROKER_SSL_KEYSTORE_TYPE
  value: PEM
- name: TRIBUTARY_BROKER_SSL_KEYSTORE_LOCATION
  value: {{ printf "%s/tls/tls.key" $dir | quote }}
- name: TRIBUTARY_BROKER_SSL_KEYSTORE_CERTIFICATE_CHAIN_LOCATION
  value: {{ printf "%s/tls/tls.crt" $dir | quote }}
{{- end }}
{{- if eq $protocol "SSL" }}
# SSL without SASL: the principal is the client certificate's subject, signed by ca.crt.
- name: TRIBUTARY_BROKER_SSL_CLIENT_AUTH
  value: required
- name: TRIBUTARY_BROKER_SSL_TRUSTSTORE_TYPE
  value: PEM
- name: TRIBUTARY_BROKER_SSL_TRUSTSTORE_LOCATION
  value: {{ printf "%s/tls/ca.crt" $dir | quote }}
{{- end }}
{{- if include "tributary.security.externalTls" . }}
# The external listener's own client authentication (not the client listener's).
- name: TRIBUTARY_BROKER_LISTENER_NAME_EXTERNAL_SSL_CLIENT_AUTH
  value: {{ ternary "required" "none" (eq (include "tributary.security.externalProtocol" .) "SSL") | quote }}
{{- if eq (include "tributary.security.externalProtocol" .) "SSL" }}
# SSL without SASL: the principal is the client certificate's subject, signed by ca.crt.
- name: TRIBUTARY_BROKER_LISTENER_NAME_EXTERNAL_SSL_TRUSTSTORE_TYPE
  value: PEM
- name: TRIBUTARY_BROKER_LISTENER_NAME_EXTERNAL_SSL_TRUSTSTORE_LOCATION
  value: {{ printf "%s/tls/ca.crt" $dir | quote }}
{{- end }}
{{- end }}
{{- if $security.authorization.enabled }}
# ACLs (read by the broker from its environment, not a properties bean).
- name: TRIBUTARY_BROKER_AUTHORIZER_ENABLED
  value: "true"
- name: TRIBUTARY_BROKER_SUPER_USERS
  value: {{ include "tributary.security.superUsers" . | quote }}
- name: TRIBUTARY_BROKER_ALLOW_EVERYONE_IF_NO_ACL_FOUND
  value: {{ $security.authorization.allowEveryoneIfNoAclFound | quote }}
{{- end }}
{{- include "tributary.security.internalTlsEnv" . }}
{{- end -}}

{{/* The gateway's Kafka login on the brokers' internal listener (tributary.gateway.client-properties.*), the password from its mounted file. */}}
{{- define "tributary.security.gatewayEnv" -}}
{{- include "tributary.security.passwordsImportEnv" (dict "root" . "name" "login") }}
{{- if include "tributary.security.internalTls" . }}
- name: TRIBUTARY_GATEWAY_CLIENTPROPERTIES_SECURITY_PROTOCOL
  value: SASL_SSL
- name: TRIBUTARY_GATEWAY_CLIENTPROPERTIES_SSL_TRUSTSTORE_TYPE
  value: PEM
- name: TRIBUTARY_GATEWAY_CLIENTPROPERTIES_SSL_TRUSTSTORE_LOCATION
  value: {{ printf "%s/tls-ca/ca.crt" (include "tributary.security.dir" .) | quote }}
{{- else }}
- name: TRIBUTARY_GATEWAY_CLIENTPROPERTIES_SECURITY_PROTOCOL
  value: SASL_PLAINTEXT
{{- end }}
- name: TRIBUTARY_GATEWAY_CLIENTPROPERTIES_SASL_MECHANISM
  value: SCRAM-SHA-512
- name: TRIBUTARY_GATEWAY_CLIENTPROPERTIES_SASL_JAAS_CONFIG
  value: {{ printf "org.apache.kafka.common.security.scram.ScramLoginModule required username=%q password=\"${tributary.secrets.gateway-password}\";" .Values.security.gateway.username | quote }}
{{- end -}}

{{/* Fails the render on security values the schema cannot judge alone. */}}
{{- define "tributary.security.check" -}}
{{- $security := .Values.security -}}
{{- $externalProtocol := include "tributary.security.externalProtocol" . -}}
{{- if and (not $security.enabled) $externalProtocol (ne $externalProtocol "PLAINTEXT") -}}
{{- fail (printf "broker.external.securityProtocol %s needs security.enabled (its users, TLS Secret and ACLs); without it the external listener is PLAINTEXT" $externalProtocol) -}}
{{- end -}}
{{- if and $security.enabled (include "tributary.security.externalTls" .) (not (include "tributary.security.tlsSecretName" .)) -}}
{{- fail (printf "broker.external.securityProtocol %s (SASL_SSL is the default with security.enabled) needs a TLS source whose certificate names the external hosts: security.tls.certManager.enabled (the chart's Certificate names them) or security.tls.existingSecret; or choose SASL_PLAINTEXT, or PLAINTEXT to opt out of authentication" $externalProtocol) -}}
{{- end -}}
{{- $rotation := $security.clusterSecret.rotation -}}
{{- if and $rotation.previousExistingSecret (eq $rotation.previousExistingSecret (default (include "tributary.security.clusterSecretName" .) $rotation.coordinatorExistingSecret)) (eq $rotation.previousKey (ternary $rotation.coordinatorKey (include "tributary.security.clusterSecretKey" .) (not (empty $rotation.coordinatorExistingSecret)))) -}}
{{- fail "security.clusterSecret.rotation.previousExistingSecret names the coordinators' current secret: the previous secret is the one being rotated out (docs/security.md, \"Rotating the secret\")" -}}
{{- end -}}
{{- if and $security.enabled (eq $security.users.adminUsername $security.gateway.username) -}}
{{- fail (printf "security.users.adminUsername and security.gateway.username are both %q: the admin and the gateway are two users, each with its own password" $security.gateway.username) -}}
{{- end -}}
{{- if and (include "tributary.security.raftTls" .) (not (include "tributary.security.tlsSecretName" .)) -}}
{{- fail "security.raftTls.enabled needs a TLS source: security.tls.existingSecret or security.tls.certManager.enabled" -}}
{{- end -}}
{{- if and $security.enabled (eq (include "tributary.security.clientProtocol" .) "SSL") (not (include "tributary.security.tlsSecretName" .)) -}}
{{- fail "security.clientProtocol SSL needs a TLS source: security.tls.existingSecret or security.tls.certManager.enabled" -}}
{{- end -}}
{{- end -}}
