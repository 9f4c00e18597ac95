#!/usr/bin/env bash
# Consumer-group benchmark (issue 9): join to first record and OffsetCommit throughput (sync from
# one member, async from several), Apache Kafka 4.4.0 vs tierlog on loopback, with ratios.
#   bench/group-bench.sh                  # medians of 3 runs
#   bench/group-bench.sh --runs 5 --joins 20 --seconds 10 --members 8
#   bench/group-bench.sh --smoke          # one short iteration: the harness works
# SKIP_BUILD=1 skips the Maven build. Method in bench/README.md.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
if [[ -z "${SKIP_BUILD:-}" ]]; then
  echo "group-bench: building bench and server..." >&2
  mvn -q -B -DskipTests -Dspotless.check.skip=true -pl bench,server -am package >&2
fi
cp="$(bench/snapshot-classpath.sh)"
snap="${cp%%/classes:*}"
# Run a copy of the server's build output (others may rebuild it meanwhile), as bin/tierlog does.
cp -r server/target/classes "$snap/server-classes"
cp -r server/target/lib "$snap/server-lib"
cat > "$snap/tierlog" <<LAUNCHER
#!/usr/bin/env bash
exec "${JAVA_HOME:+$JAVA_HOME/bin/}java" \${TIERLOG_HEAP_OPTS:--Xms512m -Xmx2g} -XX:+UseG1GC \${TIERLOG_OPTS:-} \\
  -cp "$snap/server-classes:$snap/server-lib/*" io.tierlog.server.cli.TierlogCli "\$@"
LAUNCHER
chmod +x "$snap/tierlog"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
exec "$JAVA" -Xmx1g -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -Dorg.slf4j.simpleLogger.log.org.apache.kafka=error -cp "$cp" \
  io.tierlog.bench.sidebyside.GroupBench --tierlog "$snap/tierlog" "$@"
