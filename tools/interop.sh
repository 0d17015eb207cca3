#!/usr/bin/env bash
# The real-Elasticsearch harness: builds wirestream's side (//interop:runner, //interop:peer)
# and the Maven project in interop/ once per ES version pinned in interop/es-versions.txt,
# then runs its checks (vectors, reduce, transport, coordinator) with ES's own jars as the
# oracle (coordinator: a 3-node ES cluster in the harness's JVM and //examples:es_coordinator), and
# the `versions` check: wirestream's release table (TransportVersion::releases(), through
# //interop:release_table) against each pinned jar's own TransportVersion.current() and
# minimum compatible version (interop/versions). Pins whose compat line is `table` get
# only the versions check (releases the harness does not cover yet).
#
#   tools/interop.sh                  every pinned version, the CI seed and one fresh seed
#   tools/interop.sh --report         the same, then writes docs/compatibility.md
#   tools/interop.sh --prefetch       only downloads what Maven needs for every pinned version
#   INTEROP_VERSIONS="8.7.1" tools/interop.sh     only these releases (must be pinned)
#   INTEROP_SEED=123 tools/interop.sh             the "fresh" seed fixed, to replay a run
#   INTEROP_CHECKS=vectors,reduce tools/interop.sh       (default: all five, versions too)
#   INTEROP_TARGET=/tmp/mine tools/interop.sh    Maven's build folders there, not interop/target
#   INTEROP_COORDINATOR_BENCH=20 tools/interop.sh  the coordinator check also takes its numbers
#                                  (20 samples a side and round; CI seed run only; see
#                                  interop/README.md)
#
# Prints per version `interop ES <v> <check>: N of M match|pass` (once per seed), and last
# `interop: N passed, N failed`, counting those lines; exits 1 if any failed. Needs
# tools/setup.sh's packages, Maven and the JDKs the pins name (the java-maven machine).
set -uo pipefail
cd "$(dirname "$0")/.."

report=0
prefetch=0
for a in "$@"; do
  case "$a" in
    --report) report=1 ;;
    --prefetch) prefetch=1 ;;
    -h | --help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "interop: unknown argument '$a' (see --help)" >&2; exit 2 ;;
  esac
done

readonly CI_SEED=20261202
fresh_seed=${INTEROP_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
work=$(mktemp -d /tmp/interop.XXXXXX)
log="$work/report.log"
vlog="$work/versions.log"  # the versions check's lines: counted, not in the report's matrix
: >"$vlog"
: >"$log"
target=$(realpath -m "${INTEROP_TARGET:-interop/target}")

fail() { echo "interop: $*" >&2; echo "interop: 0 passed, 1 failed"; exit 1; }

command -v mvn >/dev/null || fail "mvn not found (the java-maven machine has Maven 3.8)"

mapfile -t pins < <(grep -vE '^\s*(#|$)' interop/es-versions.txt)
[ "${#pins[@]}" -gt 0 ] || fail "no versions in interop/es-versions.txt"

if [ "$prefetch" -eq 1 ]; then  # Maven Central only: no build, no check (CI overlaps it)
  rc=0
  for pin in "${pins[@]}"; do
    read -r version jdk line <<<"$pin"
    echo "=== interop prefetch ES $version"
    if [ "$line" != table ]; then
      JAVA_HOME=/usr/lib/jvm/$jdk mvn -B -q -f interop/pom.xml -Des.version="$version" \
        -Des.line="$line" -Dinterop.target="$work/prefetch" dependency:go-offline || rc=1
    fi
    # What the versions check runs (go-offline would ignore the pom's exclusion).
    JAVA_HOME=/usr/lib/jvm/$jdk mvn -B -q -f interop/versions/pom.xml -Des.version="$version" \
      -Dinterop.target="$work/prefetch" compile dependency:build-classpath \
      -Dmdep.includeScope=runtime -Dmdep.outputFile="$work/prefetch/cp-$version.txt" || rc=1
  done
  rm -rf "$work"
  exit "$rc"
fi
# The coordinator's numbers are taken of an optimized es_coordinator (and so the rest is too).
build_mode=()
[ "${INTEROP_COORDINATOR_BENCH:-0}" != 0 ] && build_mode=(-c opt)
bazel build "${build_mode[@]}" //interop:runner //interop:peer //interop:release_table \
  //examples:es_coordinator 2>&1 | tail -n 3
[ "${PIPESTATUS[0]}" -eq 0 ] ||
  fail "bazel build of //interop's runner, peer, release_table or //examples:es_coordinator failed"
runner=$PWD/bazel-bin/interop/runner
coordinator=$PWD/bazel-bin/examples/es_coordinator
peer=$PWD/bazel-bin/interop/peer
release_table=$PWD/bazel-bin/interop/release_table
checks=${INTEROP_CHECKS:-vectors,reduce,transport,coordinator,versions}
# The harness's own checks (org.wirestream.interop.Main); versions is this script's.
harness_checks=$(tr ',' '\n' <<<"$checks" | grep -vx versions | paste -sd, -)
check_versions=0
grep -qx versions <<<"$(tr ',' '\n' <<<"$checks")" && check_versions=1

# versions_check VERSION JAVA_HOME: the jar's line against the table's, as text. Any
# difference, an unresolvable jar or a release missing from the table is a failure.
versions_check() {
  local version=$1 java_home=$2 es ws
  local vbuild=$target/versions-$version
  if ! JAVA_HOME=$java_home mvn -B -q -f interop/versions/pom.xml -Des.version="$version" \
    -Dinterop.target="$target" compile dependency:build-classpath -Dmdep.includeScope=runtime \
    -Dmdep.outputFile="$vbuild/classpath.txt" >"$work/mvn-versions-$version.log" 2>&1; then
    tail -n 20 "$work/mvn-versions-$version.log"
    { echo "  FAIL versions: interop/versions did not build against ES $version (Maven above)"
      echo "interop ES $version versions: 0 of 1 match"; } | tee -a "$vlog"
    return
  fi
  es=$("$java_home/bin/java" -cp "$vbuild/classes:$(cat "$vbuild/classpath.txt")" \
    org.wirestream.interop.versions.ReleaseVersions 2>"$work/versions-$version.err" | tail -n 1)
  ws=$("$release_table" "$version")
  if [ -n "$es" ] && [ "$es" = "$ws" ]; then
    echo "interop ES $version versions: 1 of 1 match ($es)" | tee -a "$vlog"
  else
    { echo "  FAIL versions: ES's jar says '${es:-nothing}'"
      [ -z "$es" ] && sed 's/^/    /' "$work/versions-$version.err" | tail -n 5
      echo "  FAIL versions: wirestream's table says '$ws' (stream/transport_version_releases.cc)"
      echo "interop ES $version versions: 0 of 1 match"; } | tee -a "$vlog"
  fi
}
wanted=${INTEROP_VERSIONS:-}
if [ -n "$wanted" ]; then
  for w in $wanted; do
    awk '{print $1}' <<<"$(printf '%s\n' "${pins[@]}")" | grep -x "$w" >/dev/null ||
      fail "ES $w is not pinned in interop/es-versions.txt"
  done
fi

for pin in "${pins[@]}"; do
  read -r version jdk line pin_checks <<<"$pin"
  if [ -n "$wanted" ] && ! grep -qxF -- "$version" <<<"$(tr ' ' '\n' <<<"$wanted")"; then continue; fi
  java_home=/usr/lib/jvm/$jdk
  [ -x "$java_home/bin/java" ] || fail "ES $version needs $java_home (not installed)"
  echo "=== interop ES $version (JDK $jdk, compat $line)"
  [ "$check_versions" -eq 1 ] && versions_check "$version" "$java_home"
  [ "$line" = table ] || [ -z "$harness_checks" ] && continue
  # A pin's fourth column, if any, names the only harness checks that release passes yet.
  version_checks=$harness_checks
  if [ -n "${pin_checks:-}" ]; then
    version_checks=$(tr ',' '\n' <<<"$harness_checks" | grep -xF -f <(tr ',' '\n' <<<"$pin_checks") |
      paste -sd, -)
    echo "  ES $version runs only $pin_checks (interop/es-versions.txt)"
    not_run=$(tr ',' '\n' <<<"$harness_checks" | grep -vxF -f <(tr ',' '\n' <<<"$pin_checks") |
      paste -sd, -)
    [ -n "$not_run" ] && echo "  ES $version: not run yet: $not_run (interop/es-versions.txt)"
    [ -n "$version_checks" ] || continue
  fi
  build=$target/$version
  if ! JAVA_HOME=$java_home mvn -B -q -f interop/pom.xml -Des.version="$version" \
    -Dinterop.target="$target" \
    -Des.line="$line" test-compile dependency:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile="$build/classpath.txt" >"$work/mvn-$version.log" 2>&1; then
    tail -n 30 "$work/mvn-$version.log"
    echo "interop ES $version build: 0 of 1 pass" | tee -a "$log"
    continue
  fi
  cp="$build/test-classes:$(cat "$build/classpath.txt")"
  run() {  # run SEED CHECKS
    local out="$work/run-$version-$1.log" status c bench=0
    [ "$1" = "$CI_SEED" ] && bench=${INTEROP_COORDINATOR_BENCH:-0}
    "$java_home/bin/java" -Xmx2g -Dinterop.coordinator.bench="$bench" -cp "$cp" \
      org.wirestream.interop.Main --seed "$1" \
      --runner "$runner" --peer "$peer" --coordinator "$coordinator" --work "$work/$version-$1" --checks "$2" |
      tee "$out" | tee -a "$log"
    status=${PIPESTATUS[0]}
    # A check the JVM never reported (it died: out of memory, a crash) is a failure, not a skip.
    for c in $(tr ',' ' ' <<<"$2"); do
      grep -q "^interop ES $version $c: " "$out" && continue
      { echo "  FAIL $c: no result at seed $1 (the harness exited with status $status)"
        echo "interop ES $version $c: 0 of 1 match"; } | tee -a "$log"
    done
  }
  run "$CI_SEED" "$version_checks"
  # A fresh seed each run for the randomized checks (the transport cases are fixed).
  fresh_checks=$(tr ',' '\n' <<<"$version_checks" | grep -vx transport | paste -sd, -)
  [ -n "$fresh_checks" ] && run "$fresh_seed" "$fresh_checks"
done

# Every row of the table must be pinned, so that CI checks every row against its jar.
if [ "$check_versions" -eq 1 ]; then
  pinned=$(printf '%s\n' "${pins[@]}" | awk '{print $1}')
  while read -r _ row _; do
    grep -qxF -- "$row" <<<"$pinned" && continue
    { echo "  FAIL versions: $row is in wirestream's release table but not pinned in interop/es-versions.txt"
      echo "interop ES $row versions: 0 of 1 match"; } | tee -a "$vlog"
  done < <("$release_table" --all)
fi

passed=0
failed=0
count_re='^interop ES [^ ]+ [a-z]+: ([0-9]+) of ([0-9]+)'
while read -r l; do
  if [[ $l =~ $count_re ]]; then
    if [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] && [ "${BASH_REMATCH[2]}" -gt 0 ]; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
    fi
  fi
done < <(cat "$log" "$vlog")
[ $((passed + failed)) -gt 0 ] || failed=1  # nothing ran is a failure, never a pass

if [ "$report" -eq 1 ]; then
  python3 tools/interop_report.py "$log" docs/compatibility.md || failed=$((failed + 1))
fi
echo "interop: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
