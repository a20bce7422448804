# shellcheck shell=bash
# Sourced by bin/tributary: what `bin/tributary up --secure` makes and passes to the processes.
#
# Everything is made once per state directory, in $state_dir/secure (mode 700), and kept across
# `down` and `up` (a client configured once keeps working); `up --secure --clean` makes it anew.
#
#   ca.p12               the run's certificate authority: its key and certificate (PKCS12)
#   ca.pem               its certificate, what a client trusts (PEM)
#   server.p12           the brokers' and coordinators' key and certificate chain, signed by the
#                        CA, for localhost, 127.0.0.1 and the addresses of TRIBUTARY_HOSTS (PKCS12):
#                        the brokers' SASL_SSL client listeners, their internal listeners and the
#                        coordinators' Kafka listeners
#   raft.p12             the coordinators' key and certificate for mutual TLS on the Raft port
#                        (serverAuth and clientAuth, signed by the CA; PKCS12)
#   keystore.password    the password of ca.p12, server.p12 and raft.p12
#   truststore.p12       the CA's certificate for Java clients (PKCS12), and truststore.password
#   cluster.secret       the cluster's internal secret (docs/control-plane.md, Authentication)
#   admin.password       the super user `admin`'s password (SCRAM-SHA-512 and SCRAM-SHA-256)
#   gateway.password     the gateway's SCRAM user's password (a super user, see docs/security.md)
#   admin.properties     a Java client config for the admin (kafka-topics.sh --command-config ...)
#   admin-local.properties  the same over the brokers' SASL_PLAINTEXT listeners on 127.0.0.1:9392+i
#                        (LOCAL), for local tools without TLS
#   admin.kcat.properties  the same for librdkafka (kcat -F ...): kcat refuses Java's
#                        sasl.jaas.config and trust stores, so one file cannot serve both; PLAIN
#                        over TLS, since Debian's librdkafka 2.0 fails SCRAM against Kafka 4.4 too
#   coordinator.properties, broker.properties, gateway.properties
#                        the secrets each process reads (spring.config.additional-location), so
#                        that no password is on a command line (/proc/PID/cmdline is readable by all)
#
# The certificates come from the JDK's keytool beside the java that runs the cluster: nothing
# else is needed. Passwords and the secret are random (/dev/urandom), files holding them mode 600.

# A random token of N bytes, URL-safe base64 without padding.
secure_random() { # N
  head -c "$1" /dev/urandom | base64 -w0 | tr '+/' '-_' | tr -d '='
}

# Makes the TLS material and the secrets in DIR unless they are there already.
secure_material() { # DIR JAVA_BIN HOST...
  local dir=$1 keytool host san="dns:localhost,ip:127.0.0.1" password
  keytool=$(dirname "$2")/keytool
  shift 2
  [[ -x $keytool ]] || die "--secure needs keytool beside $java_bin"
  mkdir -p "$dir"
  chmod 700 "$dir"
  if [[ -s $dir/server.p12 && -s $dir/truststore.p12 && -s $dir/cluster.secret && -s $dir/admin.password &&
    -s $dir/gateway.password ]]; then
    raft_material "$dir" "$keytool"
    return 0
  fi
  rm -f -- "$dir"/*
  for host in "$@"; do
    if [[ $host =~ ^[0-9.]+$ || $host == *:* ]]; then san+=",ip:$host"; else san+=",dns:$host"; fi
  done
  password=$(secure_random 18)
  (
    umask 077
    printf '%s\n' "$password" >"$dir/keystore.password"
    printf '%s\n' "$password" >"$dir/truststore.password"
    secure_random 32 >"$dir/cluster.secret"
    secure_random 18 >"$dir/admin.password"
    secure_random 18 >"$dir/gateway.password"
  )
  local -a kt=("$keytool" -noprompt -storetype PKCS12 -storepass "$password" -keypass "$password")
  local log=$dir/keytool.log
  {
    "${kt[@]}" -genkeypair -keystore "$dir/ca.p12" -alias ca -keyalg EC -groupname secp256r1 \
      -dname "CN=Tributary local CA" -validity 825 -ext bc:c &&
      "${kt[@]}" -exportcert -keystore "$dir/ca.p12" -alias ca -rfc -file "$dir/ca.pem" &&
      "${kt[@]}" -genkeypair -keystore "$dir/server.p12" -alias server -keyalg EC -groupname secp256r1 \
        -dname "CN=localhost,O=Tributary local cluster" -validity 825 &&
      "${kt[@]}" -certreq -keystore "$dir/server.p12" -alias server -file "$dir/server.csr" &&
      "${kt[@]}" -gencert -keystore "$dir/ca.p12" -alias ca -infile "$dir/server.csr" \
        -outfile "$dir/server.pem" -rfc -validity 825 -ext "san=$san" \
        -ext ku:c=digitalSignature,keyEncipherment -ext eku=serverAuth &&
      "${kt[@]}" -importcert -keystore "$dir/server.p12" -alias ca -file "$dir/ca.pem" &&
      "${kt[@]}" -importcert -keystore "$dir/server.p12" -alias server -file "$dir/server.pem" &&
      "${kt[@]}" -importcert -keystore "$dir/truststore.p12" -alias ca -file "$dir/ca.pem"
  } >"$log" 2>&1 || die "keytool could not make the TLS material (see $log)"
  rm -f -- "$dir/server.csr" "$dir/server.pem" "$log"
  raft_material "$dir" "$keytool"
  chmod 600 "$dir"/*.p12
}

# The coordinators' certificate for mutual TLS on the Raft port (raft.p12, signed by the run's CA,
# serverAuth and clientAuth), made beside material of an earlier run that lacks it.
raft_material() { # DIR KEYTOOL
  local dir=$1 password
  [[ -s $dir/raft.p12 ]] && return 0
  password=$(<"$dir/keystore.password")
  local -a kt=("$2" -noprompt -storetype PKCS12 -storepass "$password" -keypass "$password")
  local log=$dir/keytool.log
  {
    "${kt[@]}" -genkeypair -keystore "$dir/raft.p12" -alias raft -keyalg EC -groupname secp256r1 \
      -dname "CN=tributary-coordinator,O=Tributary local cluster" -validity 825 &&
      "${kt[@]}" -certreq -keystore "$dir/raft.p12" -alias raft -file "$dir/raft.csr" &&
      "${kt[@]}" -gencert -keystore "$dir/ca.p12" -alias ca -infile "$dir/raft.csr" \
        -outfile "$dir/raft.pem" -rfc -validity 825 -ext "san=dns:localhost,ip:127.0.0.1" \
        -ext ku:c=digitalSignature,keyEncipherment -ext eku=serverAuth,clientAuth &&
      "${kt[@]}" -importcert -keystore "$dir/raft.p12" -alias ca -file "$dir/ca.pem" &&
      "${kt[@]}" -importcert -keystore "$dir/raft.p12" -alias raft -file "$dir/raft.pem"
  } >"$log" 2>&1 || die "keytool could not make the Raft port's certificate (see $log)"
  rm -f -- "$dir/raft.csr" "$dir/raft.pem" "$log"
  chmod 600 "$dir/raft.p12"
}

# Writes the processes' secret settings and the clients' configs into DIR.
secure_configs() { # DIR
  local dir=$1 admin gateway keystore internal_tls
  admin=$(<"$dir/admin.password")
  gateway=$(<"$dir/gateway.password")
  keystore=$(<"$dir/keystore.password")
  # Every broker's internal listener and every coordinator's Kafka listener: SASL_SSL with the
  # run's certificate; their internal clients trust the run's CA (docs/security.md).
  internal_tls="tributary.kafka.ssl.keystore.type=PKCS12
tributary.kafka.ssl.keystore.location=$dir/server.p12
tributary.kafka.ssl.keystore.password=$keystore
tributary.kafka.ssl.truststore.type=PKCS12
tributary.kafka.ssl.truststore.location=$dir/truststore.p12
tributary.kafka.ssl.truststore.password=$keystore"
  (
    umask 077
    cat >"$dir/coordinator.properties" <<EOF
# Made by bin/tributary up --secure: the coordinators' secrets.
tributary.coordinator.control.secret-file=$dir/cluster.secret
tributary.coordinator.security.bootstrap-scram-users[0].name=admin
tributary.coordinator.security.bootstrap-scram-users[0].password=$admin
tributary.coordinator.security.bootstrap-scram-users[1].name=gateway
tributary.coordinator.security.bootstrap-scram-users[1].password=$gateway
tributary.coordinator.raft.ssl.keystore.location=$dir/raft.p12
tributary.coordinator.raft.ssl.keystore.password=$keystore
tributary.coordinator.raft.ssl.truststore.location=$dir/truststore.p12
tributary.coordinator.raft.ssl.truststore.password=$keystore
# The Kafka listener (group requests forwarded by the brokers) is SASL_SSL; the lag metric's client
# of the brokers' internal listeners trusts the run's CA.
$internal_tls
EOF
    cat >"$dir/broker.properties" <<EOF
# Made by bin/tributary up --secure: the brokers' secrets and the settings every broker shares.
tributary.broker.cluster.secret-file=$dir/cluster.secret
tributary.broker.listener.security.protocol.map=SASL_SSL:SASL_SSL,LOCAL:SASL_PLAINTEXT
tributary.broker.sasl.enabled.mechanisms=SCRAM-SHA-512,SCRAM-SHA-256,PLAIN
tributary.broker.ssl.keystore.type=PKCS12
tributary.broker.ssl.keystore.location=$dir/server.p12
tributary.broker.ssl.keystore.password=$keystore
tributary.broker.ssl.key.password=$keystore
tributary.broker.authorizer.enabled=true
tributary.broker.super.users=User:admin;User:gateway
tributary.broker.allow.everyone.if.no.acl.found=false
# The internal listener (replication, the gateway) is SASL_SSL; the replica fetchers and the group
# forwarding to the coordinators' Kafka listeners trust the run's CA and check host names.
$internal_tls
EOF
    cat >"$dir/gateway.properties" <<EOF
# Made by bin/tributary up --secure: the gateway logs in to the brokers' internal listeners, over TLS.
tributary.gateway.client-properties.security.protocol=SASL_SSL
tributary.gateway.client-properties.ssl.truststore.type=PKCS12
tributary.gateway.client-properties.ssl.truststore.location=$dir/truststore.p12
tributary.gateway.client-properties.ssl.truststore.password=$keystore
tributary.gateway.client-properties.sasl.mechanism=SCRAM-SHA-512
tributary.gateway.client-properties.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="gateway" password="$gateway";
EOF
    cat >"$dir/admin.properties" <<EOF
# The super user admin over the brokers' SASL_SSL listeners, for Java clients and Kafka's tools:
#   kafka-topics.sh --bootstrap-server 127.0.0.1:9092 --command-config $dir/admin.properties --list
security.protocol=SASL_SSL
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="$admin";
ssl.truststore.type=PKCS12
ssl.truststore.location=$dir/truststore.p12
ssl.truststore.password=$keystore
EOF
    cat >"$dir/admin-local.properties" <<EOF
# The super user admin over the brokers' SASL_PLAINTEXT listeners (LOCAL, 127.0.0.1 only), for
# local Java clients and Kafka's tools without TLS:
#   kafka-topics.sh --bootstrap-server 127.0.0.1:9392 --command-config $dir/admin-local.properties --list
security.protocol=SASL_PLAINTEXT
sasl.mechanism=SCRAM-SHA-512
sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="admin" password="$admin";
EOF
    # PLAIN (over TLS): Debian's librdkafka (2.0) fails SCRAM logins against Apache Kafka 4.4's
    # SCRAM server as against Tributary's (kafka-clients' own), while PLAIN is checked against the
    # same SCRAM credentials.
    cat >"$dir/admin.kcat.properties" <<EOF
# The super user admin over the brokers' SASL_SSL listeners, for librdkafka's clients:
#   kcat -F $dir/admin.kcat.properties -b 127.0.0.1:9092 -L
security.protocol=SASL_SSL
sasl.mechanisms=PLAIN
sasl.username=admin
sasl.password=$admin
ssl.ca.location=$dir/ca.pem
EOF
  )
}
