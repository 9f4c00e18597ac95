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
rm -rf "$snap"
mkdir -p "$snap/lib"
cp -r "$here/bench/target/classes" "$snap/classes"
cp_out="$snap/classes"
IFS=':' read -r -a entries < "$here/bench/target/bench.classpath" || true # no final newline
for e in "${entries[@]}"; do
  if [[ "$e" == "$here"/* ]]; then
    cp "$e" "$snap/lib/"
    cp_out="$cp_out:$snap/lib/$(basename "$e")"
  else
    cp_out="$cp_out:$e"
  fi
done
echo "$cp_out"
