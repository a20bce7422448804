# bin/bench-lib.sh: what bin/bench-storage, bin/bench-kafka and bin/bench-gateway share, sourced by
# each (not run by itself): finding a JDK, a free port offset for a benchmark's cluster, and the
# results directory with its context.json, the record of how a run was made.
#
# Results live in docs/benchmarks/results/<UTC start, 2026-12-02T0130Z>-<bench>/ (BENCH_RESULTS moves
# the parent directory): small files only, committed beside docs/benchmarks.md, which cites them;
# bin/bench-ratios recomputes every ratio the doc states from them.
# The caller sets prog and root first.

bench_results_root=${BENCH_RESULTS:-$root/docs/benchmarks/results}

# bench_find_java: the first JDK 21+ of JAVA_HOME, java on PATH, /usr/lib/jvm/*; sets java_bin and
# exports JAVA_HOME.
bench_find_java() {
  local candidate major
  java_bin=''
  for candidate in ${JAVA_HOME:+"$JAVA_HOME/bin/java"} "$(command -v java 2>/dev/null || true)" /usr/lib/jvm/*/bin/java; do
    [[ -n $candidate && -x $candidate ]] || continue
    major=$("$candidate" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p')
    if [[ -n $major ]] && ((major >= 21)); then java_bin=$(readlink -f "$candidate"); break; fi
  done
  [[ -n $java_bin ]] || die "no JDK 21+ found (JAVA_HOME, java on PATH, /usr/lib/jvm/*); e.g. export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64"
  export JAVA_HOME=${java_bin%/bin/java}
}

bench_port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# bench_free_port_offset BASE_PORT...: prints a port offset at which every BASE_PORT + offset is free
# (nothing accepts connections there). The offsets are 100 * k + 50 (k = 20..230), so a benchmark
# never takes a port that a system test's cluster may be about to bind: those use multiples of 100
# (ScriptedCluster), so their ports end, modulo 100, in 70-72, 80-89, 91-99 or 00 (bin/tributary's
# 8070-8072, 8080-8089, 8091-8093, 9092-9100, 9191-9193, 9291-9293), where a benchmark's ports (8080,
# 8081, 8091, 9060, 9061, 9092, 9191, 9291 plus 100 * k + 50) end in 30, 31, 41, 10, 11 or 42. All
# stay below 32768, the kernel's ephemeral range.
bench_free_port_offset() {
  local attempt offset port free
  for ((attempt = 0; attempt < 200; attempt++)); do
    offset=$((100 * (20 + RANDOM % 211) + 50))
    free=1
    for port in "$@"; do
      if bench_port_taken $((port + offset)); then free=0; break; fi
    done
    if ((free)); then printf '%s\n' "$offset"; return 0; fi
  done
  die "no port offset with free ports found in 200 attempts; set BENCH_PORT_OFFSET"
}

bench_json_string() { # TEXT -> a JSON string literal
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\n'/\\n}
  s=${s//$'\r'/\\r}
  s=${s//$'\t'/\\t}
  printf '"%s"' "$s"
}

bench_load_average() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || printf 'unknown\n'; }

# bench_start_results NAME ARGS...: creates the run's results directory (results_dir), remembers the
# start (time, load average) and the command line, and writes a first context.json.
bench_start_results() {
  local name=$1
  shift
  bench_started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  bench_load_start=$(bench_load_average)
  bench_command=$(printf '%q ' "bin/$prog" "$@")
  bench_command=${bench_command% }
  results_dir=$bench_results_root/$(date -u -d "$bench_started" +%Y-%m-%dT%H%MZ)-$name
  [[ ! -e $results_dir ]] || results_dir=$results_dir-$$
  mkdir -p "$results_dir" || die "cannot create $results_dir"
  bench_name=$name
  bench_settings=()
  bench_write_context
}

# bench_setting NAME VALUE: one setting of the run, kept in context.json's "settings".
bench_setting() { bench_settings+=("$1" "$2"); }

# bench_write_context [STATUS]: (re)writes context.json: with a STATUS (the exit status) also the end
# and the load average at the end.
bench_write_context() {
  local status=${1:-} commit dirty i java_version settings=''
  commit=$(git -C "$root" rev-parse HEAD 2>/dev/null || printf 'unknown')
  # Changes outside the results directories (whose new files a run makes itself).
  dirty=$(git -C "$root" status --porcelain 2>/dev/null | grep -v ' docs/benchmarks/results/' | head -c 2000 || true)
  java_version=$("${java_bin:-java}" -XshowSettings:properties -version 2>&1 |
    sed -n 's/^ *java.runtime.version = //p; s/^ *java.vendor = \(.*\)/ (\1)/p' | tr -d '\n')
  for ((i = 0; i < ${#bench_settings[@]}; i += 2)); do
    settings+="${settings:+, }$(bench_json_string "${bench_settings[i]}"): $(bench_json_string "${bench_settings[i + 1]}")"
  done
  {
    printf '{\n'
    printf '  "bench": %s,\n' "$(bench_json_string "$bench_name")"
    printf '  "command": %s,\n' "$(bench_json_string "$bench_command")"
    printf '  "commit": %s,\n' "$(bench_json_string "$commit")"
    printf '  "uncommitted_changes": %s,\n' "$(bench_json_string "$dirty")"
    printf '  "started_utc": %s,\n' "$(bench_json_string "$bench_started")"
    printf '  "load_average_start": %s,\n' "$(bench_json_string "$bench_load_start")"
    if [[ -n $status ]]; then
      printf '  "finished_utc": %s,\n' "$(bench_json_string "$(date -u +%Y-%m-%dT%H:%M:%SZ)")"
      printf '  "load_average_end": %s,\n' "$(bench_json_string "$(bench_load_average)")"
      printf '  "exit_status": %s,\n' "$status"
    fi
    printf '  "jdk": %s,\n' "$(bench_json_string "$java_version")"
    printf '  "cores": %s,\n' "$(nproc)"
    printf '  "memory_kib": %s,\n' "$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)"
    printf '  "kernel": %s,\n' "$(bench_json_string "$(uname -r)")"
    printf '  "settings": {%s}\n' "$settings"
    printf '}\n'
  } >"$results_dir/context.json"
}

# ---- the Apache Kafka peer (bin/bench-kafka, bin/bench-groups) ------------------------------------

# bench_kafka_libs: Apache Kafka's broker and kafka-tools jars in kafka-peer/target/kafka-libs (the
# same release as the kafka-clients Tributary is built with), built here when missing; sets
# bench_libs (the directory) and bench_kafka_version.
bench_kafka_libs() {
  bench_libs=$root/kafka-peer/target/kafka-libs
  if ! compgen -G "$bench_libs/kafka-tools-*.jar" >/dev/null || ! compgen -G "$bench_libs/kafka_2.13-*.jar" >/dev/null; then
    printf '%s\n' "building kafka-peer (Apache Kafka's broker and kafka-tools jars into ${bench_libs#"$root"/})"
    (cd "$root" && ./mvnw -B -q -pl kafka-peer package) || die "could not build kafka-peer"
  fi
  bench_kafka_version=$(basename "$(compgen -G "$bench_libs/kafka_2.13-*.jar" | head -n 1)" .jar)
  bench_kafka_version=${bench_kafka_version#kafka_2.13-}
}

# bench_kafka_start DIR PORT HEAP [PROPERTY=VALUE...]: formats and starts one Apache Kafka broker
# (KRaft, broker and controller in one JVM, node id 1) from bench_libs, listening on 127.0.0.1:PORT
# (its controller on PORT + 1), data in DIR/data, its log in DIR/server.log; HEAP is its heap flags
# (e.g. '-Xms1g -Xmx1g'), beside kafka-run-class.sh's G1 flags as Kafka ships them; each PROPERTY is
# one more line of its server.properties. Internal topics have one replica,
# group.initial.rebalance.delay.ms is 0 (as Kafka's quickstart configuration), topics are not created
# automatically. Waits until it says it started; sets bench_kafka_pid and bench_kafka_config. The
# array bench_kafka_format_args, when set, goes to the storage format (e.g. --add-scram ...).
bench_kafka_start() {
  local dir=$1 port=$2 heap_flags=$3 controller=$(($2 + 1)) cluster_id i
  shift 3
  mkdir -p "$dir"
  bench_kafka_config=$dir/server.properties
  bench_port_taken "$port" && die "port $port is taken; set BENCH_KAFKA_PORT"
  bench_port_taken "$controller" && die "port $controller is taken; set BENCH_KAFKA_PORT"
  cat >"$bench_kafka_config" <<PROPERTIES
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$controller
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$controller
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$dir/data
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
PROPERTIES
  for i in "$@"; do printf '%s\n' "$i" >>"$bench_kafka_config"; done
  cat >"$dir/log4j2.properties" <<PROPERTIES
status = warn
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = $dir/server.log
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = FILE
PROPERTIES
  # 16 random bytes, URL-safe base64 (as kafka-storage random-uuid), never starting with '-',
  # which the tool's argument parser would take for an option.
  cluster_id=-
  while [[ $cluster_id == -* ]]; do
    cluster_id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')
  done
  "$java_bin" -Xmx256m -Dlog4j2.configurationFile="$dir/log4j2.properties" -cp "$bench_libs/*" \
    kafka.tools.StorageTool format -t "$cluster_id" -c "$bench_kafka_config" \
    "${bench_kafka_format_args[@]+"${bench_kafka_format_args[@]}"}" >"$dir/format.out" 2>&1 ||
    die "formatting Kafka's storage failed: $(cat "$dir/format.out")"
  local -a heap perf
  read -r -a heap <<<"$heap_flags"
  perf=(-server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35
    -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true)
  "$java_bin" "${heap[@]}" "${perf[@]}" -Dlog4j2.configurationFile="$dir/log4j2.properties" \
    -Dkafka.logs.dir="$dir/logs" -cp "$bench_libs/*" kafka.Kafka "$bench_kafka_config" \
    </dev/null >"$dir/server.out" 2>&1 &
  bench_kafka_pid=$!
  printf '%s\n' "Apache Kafka $bench_kafka_version starting (pid $bench_kafka_pid) on 127.0.0.1:$port"
  for ((i = 0; i < 1200; i++)); do
    kill -0 "$bench_kafka_pid" 2>/dev/null || die "Kafka exited while starting; see $dir/server.out and server.log"
    if grep -q 'Kafka Server started' "$dir/server.log" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  die "Kafka did not start within 120 s; see $dir/server.log"
}

# bench_kafka_is_ours: whether bench_kafka_pid still runs kafka.Kafka with our configuration.
bench_kafka_is_ours() {
  [[ -n ${bench_kafka_pid:-} && -r /proc/$bench_kafka_pid/cmdline ]] &&
    tr '\0' ' ' 2>/dev/null <"/proc/$bench_kafka_pid/cmdline" | grep -qF "kafka.Kafka $bench_kafka_config"
}

# bench_kafka_stop: SIGTERM to the Kafka bench_kafka_start started (if it still runs), SIGKILL after 30 s.
bench_kafka_stop() {
  bench_kafka_is_ours || return 0
  printf '%s\n' "stopping Kafka (pid $bench_kafka_pid)"
  kill -TERM "$bench_kafka_pid" 2>/dev/null || true
  local i
  for ((i = 0; i < 300; i++)); do
    bench_kafka_is_ours || break
    sleep 0.1
  done
  if bench_kafka_is_ours; then
    printf '%s\n' "Kafka did not stop within 30 s: SIGKILL"
    kill -KILL "$bench_kafka_pid" 2>/dev/null || true
  fi
  wait "$bench_kafka_pid" 2>/dev/null || true
}
