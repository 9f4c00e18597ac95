#!/usr/bin/env bash
# Side-by-side benchmark of issue 3: Apache Kafka 4.4.0 vs tierlog on loopback, same
# ProducerPerformance / consumer workloads, client MB/s and server CPU-s/GiB with ratios.
#   bench/side-by-side.sh                    # one run against bin/tierlog
#   bench/side-by-side.sh --runs 3           # medians of 3 runs
#   bench/side-by-side.sh --peer kafka       # Kafka vs Kafka: sanity check of the harness
#   bench/side-by-side.sh --scale 0.1        # 10x smaller workloads for a quick try
# Other options: --set k=v (tierlog setting), --workloads "100 B,zstd", --work DIR.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
if [[ -z "${SKIP_BUILD:-}" ]]; then
  echo "side-by-side: building bench (and the server for bin/tierlog)..." >&2
  mvn -q -B -DskipTests -Dspotless.check.skip=true -pl bench,server -am package >&2
fi
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
exec "$JAVA" -Xmx512m -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -Dorg.slf4j.simpleLogger.log.org.apache.kafka=error -cp "bench/target/classes:$(cat bench/target/bench.classpath)" \
  io.tierlog.bench.sidebyside.SideBySide "$@"
