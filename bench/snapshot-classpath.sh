#!/usr/bin/env bash
# Prints a class path for running bench code that does not change under a running benchmark:
# bench/target/classes and the reactor modules' jars (which other builds in this work tree may
# rebuild at any moment) are copied to bench/target/run-<caller pid>/; Maven repository jars are
# used in place. Snapshots of callers that have exited are removed.
# Usage (after `mvn -pl bench -am package`): cp="$(bench/snapshot-classpath.sh)"
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
for old in "$here"/bench/target/run-*; do
  [[ -d "$old" ]] || continue
  kill -0 "${old##*-}" 2>/dev/null || rm -rf "$old"
done
snap="$here/bench/target/run-$PPID"
# Another build may be rewriting bench/target/classes right now: retry until the copy holds the
# generated JMH benchmark list and the harness classes.
for attempt in $(seq 1 20); do
  rm -rf "$snap"
  mkdir -p "$snap/lib"
  ok=1
  cp -r "$here/bench/target/classes" "$snap/classes" 2>/dev/null || ok=0
  grep -q 'io.tierlog.bench.hot' "$snap/classes/META-INF/BenchmarkList" 2>/dev/null || ok=0
  [[ -f "$snap/classes/io/tierlog/bench/sidebyside/SideBySide.class" ]] || ok=0
  cp_out="$snap/classes"
  IFS=':' read -r -a entries < "$here/bench/target/bench.classpath" || true # no final newline
  for e in "${entries[@]}"; do
    if [[ "$e" == "$here"/* ]]; then
      cp "$e" "$snap/lib/" 2>/dev/null || ok=0
      cp_out="$cp_out:$snap/lib/$(basename "$e")"
    else
      cp_out="$cp_out:$e"
    fi
  done
  [[ $ok == 1 ]] && { echo "$cp_out"; exit 0; }
  echo "snapshot-classpath: build output is being rewritten; retrying in 5 s" >&2
  sleep 5
done
echo "snapshot-classpath: no complete build output in bench/target; run mvn -pl bench -am package" >&2
exit 1
