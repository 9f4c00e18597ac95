#!/usr/bin/env bash
# Side-by-side benchmark of issue 3: Apache Kafka 4.4.0 vs tierlog on loopback, same
# ProducerPerformance / consumer workloads, client MB/s and server CPU-s/GiB with ratios.
#   bench/side-by-side.sh                    # one run against tierlog (built from server/)
#   bench/side-by-side.sh --runs 3           # medians of 3 runs
#   bench/side-by-side.sh --peer kafka       # Kafka vs Kafka: sanity check of the harness
#   bench/side-by-side.sh --scale 0.1        # 10x smaller workloads for a quick try
#   bench/side-by-side.sh --workloads txn     # transactional ingest only (issue 11)
# Other options: --set k=v (tierlog setting), --workloads "100 B,zstd", --work DIR,
# --tierlog LAUNCHER (default: a snapshot of server/target run like bin/tierlog does).
# SKIP_BUILD=1 skips the Maven build.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
if [[ -z "${SKIP_BUILD:-}" ]]; then
  echo "side-by-side: building bench and server..." >&2
  mvn -q -B -DskipTests -Dspotless.check.skip=true -pl bench,server -am package >&2
fi
cp="$(bench/snapshot-classpath.sh)"
snap="${cp%%/classes:*}"
# The server's build output may be rebuilt by others during the run: run a copy of it, with the
# JVM options of bin/tierlog.
cp -r server/target/classes "$snap/server-classes"
cp -r server/target/lib "$snap/server-lib"
cat > "$snap/tierlog" <<LAUNCHER
#!/usr/bin/env bash
exec "${JAVA_HOME:+$JAVA_HOME/bin/}java" \${TIERLOG_HEAP_OPTS:--Xms512m -Xmx2g} -XX:+UseG1GC \${TIERLOG_OPTS:-} \\
  -cp "$snap/server-classes:$snap/server-lib/*" io.tierlog.server.cli.TierlogCli "\$@"
LAUNCHER
chmod +x "$snap/tierlog"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
exec "$JAVA" -Xmx512m -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -Dorg.slf4j.simpleLogger.log.org.apache.kafka=error -cp "$cp" \
  io.tierlog.bench.sidebyside.SideBySide --tierlog "$snap/tierlog" "$@"
