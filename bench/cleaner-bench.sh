#!/usr/bin/env bash
# Log cleaner benchmark (issue 10): cleaner throughput (dirty MiB per cleaner-thread CPU-second),
# Apache Kafka 4.4.0 vs tierlog's hot-tier cleaner on the same records, with the ratio.
#   bench/cleaner-bench.sh                    # medians of 3 runs, 200k records
#   bench/cleaner-bench.sh --runs 5 --records 500000
# SKIP_BUILD=1 skips the Maven build. Method in bench/README.md.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
if [[ -z "${SKIP_BUILD:-}" ]]; then
  echo "cleaner-bench: building bench and server..." >&2
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
  io.tierlog.bench.sidebyside.CleanerBench --tierlog "$snap/tierlog" "$@"
