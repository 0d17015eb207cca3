#!/usr/bin/env bash
# Network faults on real links (docs/transport.md "Network faults"): a coordinator
# and 3 shard nodes, each in its own network namespace, joined by veth pairs; between
# the coordinator and each shard a fault-injecting TCP proxy (tests/faults/proxy.h).
# Each fault runs 1,000 searches (tests/faults/fault_coordinator.cc) and is judged on
# what the coordinator reports. Prints one line per fault:
#
#   faults latency: 1000 of 1000 requests correct, 0 hung, max latency 412 ms, ...
#
# and last `faults: N passed, N failed`; exit status 1 if any failed. Needs root, ip
# and tc (it fails, not skips, without them). Namespaces, links and processes are
# removed on every exit, also when interrupted.
#
#   tools/faults.sh                 # every fault
#   tools/faults.sh latency reset   # only these
#   FAULTS_BIN=DIR tools/faults.sh  # binaries already built (cluster, fault_proxy, fault_coordinator)
set -uo pipefail
cd "$(dirname "$0")/.."

ALL_FAULTS=(latency bandwidth partition blackhole reset kill connect tls)
if (($#)); then FAULTS=("$@"); else FAULTS=("${ALL_FAULTS[@]}"); fi

die() {  # a setup failure: loud, counted, never a skip
  echo "faults: $*" >&2
  echo "faults: 0 passed, 1 failed"
  exit 1
}
[ "$(id -u)" -eq 0 ] || die "must run as root (network namespaces, veth, tc)"
command -v ip >/dev/null || die "ip (iproute2) is missing"
command -v tc >/dev/null || die "tc (iproute2) is missing"
command -v python3 >/dev/null || die "python3 is missing"
for f in "${FAULTS[@]}"; do
  [[ " ${ALL_FAULTS[*]} " == *" $f "* ]] || die "unknown fault $f (know: ${ALL_FAULTS[*]})"
done

# The searches: 36,000 documents over 3 shards, a date_histogram of 30 s
# buckets: each shard's answer is about 53 KB (the coordinator reports it).
SHARDS=3
DOCS=36000
TERMS=2000
INTERVAL_MS=30000
REQUESTS=1000
# The three limits may be set from the environment (to see a check fail, say).
DEADLINE_MS=${DEADLINE_MS:-2000}                # each shard call's timeout
SLACK_MS=${SLACK_MS:-1000}                      # a search not done by deadline + slack is hung
CONNECT_TIMEOUT_MS=${CONNECT_TIMEOUT_MS:-1000}  # TransportOptions::connect_timeout
RATE=80                # searches started a second: 1,000 take 12.5 s, the faults
FAULT_AT=3             # start 3 s in
FAULT_FOR=5            # and last 5 s
PORT=9300

if [ -n "${FAULTS_BIN:-}" ]; then
  CLUSTER=$FAULTS_BIN/cluster
  PROXY=$FAULTS_BIN/fault_proxy
  COORD=$FAULTS_BIN/fault_coordinator
else
  nice -n 19 bazel build -c opt //examples:cluster //tests/faults:fault_proxy \
    //tests/faults:fault_coordinator >/dev/null 2>&1 ||
    die "bazel build of the fault binaries failed"
  bin=$(bazel info -c opt bazel-bin 2>/dev/null)
  CLUSTER=$bin/examples/cluster
  PROXY=$bin/tests/faults/fault_proxy
  COORD=$bin/tests/faults/fault_coordinator
fi
for b in "$CLUSTER" "$PROXY" "$COORD"; do [ -x "$b" ] || die "no binary $b"; done

RUN=$(mktemp -d /tmp/wsf.XXXXXX)
PIDS=()          # every process this script started
declare -A SHARD_PID PROXY_PID

cleanup() {
  trap - EXIT INT TERM
  for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
  sleep 0.2
  for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
  for ns in wsf-c wsf-s0 wsf-s1 wsf-s2; do ip netns del "$ns" 2>/dev/null; done
  rm -rf "$RUN"
}
trap cleanup EXIT
pause() { sleep "$1" & wait $!; }  # a sleep the INT and TERM traps interrupt
trap 'exit 130' INT
trap 'exit 143' TERM

# A previous run killed with SIGKILL leaves its namespaces and what runs in them.
for ns in wsf-c wsf-s0 wsf-s1 wsf-s2; do
  if ip netns pids "$ns" >/dev/null 2>&1; then
    for p in $(ip netns pids "$ns"); do kill -KILL "$p" 2>/dev/null; done
    ip netns del "$ns"
  fi
done

ip netns add wsf-c || die "ip netns add failed"
ip -n wsf-c link set lo up
for i in 0 1 2; do
  ip netns add "wsf-s$i" || die "ip netns add failed"
  ip -n "wsf-s$i" link set lo up
  ip link add "wsfc$i" netns wsf-c type veth peer name "wsfs$i" netns "wsf-s$i" ||
    die "veth pair $i failed"
  ip -n wsf-c addr add "10.77.$i.1/30" dev "wsfc$i"
  ip -n "wsf-s$i" addr add "10.77.$i.2/30" dev "wsfs$i"
  ip -n wsf-c link set "wsfc$i" up
  ip -n "wsf-s$i" link set "wsfs$i" up
done

"$CLUSTER" --make-certs "$RUN" --shards "$SHARDS" \
  --cert-ips 127.0.0.1,10.77.0.1,10.77.0.2,10.77.1.1,10.77.1.2,10.77.2.1,10.77.2.2 ||
  die "certificates failed"

start_shard() {  # start_shard I [--certs DIR]: waits until it listens
  local i=$1 log=$RUN/shard$i.log
  shift
  : >"$log"
  ip netns exec "wsf-s$i" "$CLUSTER" --serve-shard "$i" --shards "$SHARDS" --docs "$DOCS" \
    --terms "$TERMS" --listen "10.77.$i.2:$PORT" "$@" >"$log" 2>&1 &
  SHARD_PID[$i]=$!
  PIDS+=($!)
  for _ in $(seq 100); do
    grep -q '^listening' "$log" && return 0
    sleep 0.1
  done
  echo "faults: shard $i did not start: $(cat "$log")" >&2
  return 1
}
stop_shard() {  # stop_shard I [SIGNAL]
  kill "-${2:-TERM}" "${SHARD_PID[$1]}" 2>/dev/null
  wait "${SHARD_PID[$1]}" 2>/dev/null
}
start_proxy() {
  local i=$1
  rm -f "$RUN/p$i.sock"
  ip netns exec wsf-c "$PROXY" --listen "127.0.0.1:$((9400 + i))" \
    --upstream "10.77.$i.2:$PORT" --control "$RUN/p$i.sock" >"$RUN/proxy$i.log" 2>&1 &
  PROXY_PID[$i]=$!
  PIDS+=($!)
  for _ in $(seq 50); do
    [ -S "$RUN/p$i.sock" ] && return 0
    sleep 0.1
  done
  return 1
}
proxy() {  # proxy I COMMAND...
  local i=$1
  shift
  "$PROXY" --control "$RUN/p$i.sock" --send "$*" >/dev/null
}
cuts() {  # cuts I: how many of proxy I's resets so far cut a chunk in half
  "$PROXY" --control "$RUN/p$1.sock" --send stats | sed -E 's/.* cut=([0-9]+).*/\1/'
}
# While a fault is on, shard I's answers leave at 50 Mbit/s: a 53 KB answer takes 8.5 ms,
# so at 80 searches a second its link is busy most of the time and the fault lands in
# the middle of an answer.
slow_link() {  # slow_link I [RATE]
  ip netns exec "wsf-s$1" tc qdisc add dev "wsfs$1" root tbf rate "${2:-50mbit}" burst 32kbit \
    latency 400ms
}
fast_link() { ip netns exec "wsf-s$1" tc qdisc del dev "wsfs$1" root; }

for i in 0 1 2; do
  start_shard "$i" || die "shard $i did not start"
  start_proxy "$i" || die "proxy $i did not start"
done

# coordinator OUT [args...]: 1,000 searches through the proxies, in the background.
coordinator() {
  local out=$1
  shift
  ip netns exec wsf-c "$COORD" --shard-addresses 127.0.0.1:9400,127.0.0.1:9401,127.0.0.1:9402 \
    --requests "$REQUESTS" --deadline-ms "$DEADLINE_MS" --slack-ms "$SLACK_MS" \
    --connect-timeout-ms "$CONNECT_TIMEOUT_MS" --docs "$DOCS" --terms "$TERMS" \
    --interval-ms "$INTERVAL_MS" "$@" >"$out" 2>"$out.err" &
  COORD_PID=$!
  PIDS+=($!)
}

# judge FAULT OUT EXPECTATIONS...: prints the fault's line; 0 if every check holds.
# Each expectation is a Python condition over d (the coordinator's JSON line).
judge() {
  python3 - "$@" <<'PY'
import json, sys
fault, path = sys.argv[1], sys.argv[2]
try:
    d = json.loads(open(path).read().strip().splitlines()[-1])
except Exception as e:
    try:
        err = open(path + ".err").read().strip().splitlines()[-3:]
    except OSError:
        err = []
    print(f"faults {fault}: 0 of 1000 requests correct, the coordinator printed no report "
          f"({e}; {' | '.join(err)}); FAILED")
    sys.exit(1)
limit = d["deadline_ms"] + d["slack_ms"]
common = [
    "d['hung'] == 0",
    "d['wrong'] == 0",
    "d['correct'] + d['partial'] == d['requests']",
    f"d['max_latency_ms'] <= {limit}",
    "not any(k.startswith('untyped') for k in d['failure_kinds'])",
    "d['connect_overruns'] == 0",
    "d['connected_after']",
    "d['fds_after'] == d['fds_before']",
    "d['threads_after'] == d['threads_before']",
    "d['pages_after'] == d['pages_before']",
]
failed = [c for c in common + sys.argv[3:] if not eval(c, {"d": d})]
kinds = ", ".join(f"{k} {v}" for k, v in sorted(d["failure_kinds"].items())) or "none"
connects = ", ".join(f"{k} {v}" for k, v in sorted(d["connect_failures"].items())) or "none"
shards = ", ".join(f"{k} {v}" for k, v in sorted(d["failed_shards"].items())) or "none"
print(f"faults {fault}: {d['correct']} of {d['requests']} requests correct, {d['hung']} hung, "
      f"max latency {d['max_latency_ms']:.0f} ms (deadline {d['deadline_ms']} + slack "
      f"{d['slack_ms']} ms), p50 {d['p50_latency_ms']:.0f} ms; {d['partial']} partial "
      f"(failed shards: {shards}; errors: {kinds}), {d['wrong']} wrong; "
      f"{d['reconnects']} reconnects, failed connects: {connects}, max connect "
      f"{d['max_connect_ms']:.0f} ms (connect_timeout {d['connect_timeout_ms']} ms); "
      f"fds {d['fds_before']}->{d['fds_after']}, threads {d['threads_before']}->"
      f"{d['threads_after']}, pages {d['pages_before']}->{d['pages_after']}; "
      + ("ok" if not failed else "FAILED: " + "; ".join(failed)))
sys.exit(1 if failed else 0)
PY
}

passed=0
failed=0
record() {  # record FAULT OUT EXPECTATIONS...
  if judge "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    [ -s "$2.err" ] && sed 's/^/  coordinator: /' "$2.err" | tail -n 5
  fi
}
all_pass() { for i in 0 1 2; do proxy "$i" pass; done; }

# The typed errors a fault may show: a call's timeout, a closed connection, a
# search sent while the shard had no open connection, a reconnect that failed.
typed="set(d['failure_kinds']) <= {'receive_timeout_transport_exception', \
'node_disconnected_exception', 'node_not_connected', 'connect_transport_exception'}"
# Searches after the fault ended all correct: the connection came back.
recovered="d['tail_correct'] >= 100"
only() { echo "set(d['failed_shards']) <= {'shard-$1'}"; }
showed="d['partial'] >= 1"  # the fault did happen

suite_start=$SECONDS
for fault in "${FAULTS[@]}"; do
  out=$RUN/$fault.json
  case $fault in
    latency)  # every segment each way held 100 ms +- 50 ms by the proxies
      for i in 0 1 2; do proxy "$i" delay 100 50; done
      coordinator "$out" --in-flight 32
      wait "$COORD_PID"
      all_pass
      # Nothing may fail, and the delay was real: no search under 2 x 50 ms.
      record latency "$out" "d['correct'] == d['requests']" "d['p50_latency_ms'] >= 100"
      ;;
    bandwidth)  # tbf at 10 Mbit/s on shard 0's side of its link: its answers queue
      ip netns exec wsf-s0 tc qdisc add dev wsfs0 root tbf rate 10mbit burst 32kbit latency 400ms
      coordinator "$out" --in-flight 16
      wait "$COORD_PID"
      ip netns exec wsf-s0 tc qdisc del dev wsfs0 root
      # All correct, and the throttle held: 1,000 answers of shard 0 need
      # bytes * 8 / 10 Mbit/s, within 10%.
      record bandwidth "$out" "d['correct'] == d['requests']" \
        "d['run_ms'] >= 0.9 * d['requests'] * d['answer_bytes_per_shard'] * 8 / 10e6 * 1000"
      ;;
    partition)  # shard 1's link down for 5 s mid-run, then up
      slow_link 1
      coordinator "$out" --in-flight 16 --rate "$RATE"
      pause "$FAULT_AT"
      ip -n wsf-c link set wsfc1 down
      pause "$FAULT_FOR"
      ip -n wsf-c link set wsfc1 up
      wait "$COORD_PID"
      fast_link 1
      record partition "$out" "$showed" "$(only 1)" "$typed" "$recovered"
      ;;
    blackhole)  # proxy 2 silent for 5 s (nothing closed), then forwarding again
      coordinator "$out" --in-flight 16 --rate "$RATE"
      pause "$FAULT_AT"
      proxy 2 blackhole
      pause "$FAULT_FOR"
      proxy 2 resume
      wait "$COORD_PID"
      record blackhole "$out" "$showed" "$(only 2)" "$typed" "$recovered" \
        "d['failure_kinds'].get('receive_timeout_transport_exception', 0) >= 1"
      ;;
    reset)  # proxy 0 resets its connections (SO_LINGER 0) in the middle of a chunk
      slow_link 0
      before=$(cuts 0)
      coordinator "$out" --in-flight 16 --rate "$RATE"
      pause "$FAULT_AT"
      proxy 0 reset
      wait "$COORD_PID"
      fast_link 0
      # The proxy cut an answer in half (not an idle connection's reset).
      record reset "$out" "$showed" "$(only 0)" "$typed" "$recovered" "d['reconnects'] >= 1" \
        "d['failure_kinds'].get('node_disconnected_exception', 0) >= 1" \
        "'chunks cut' and $(($(cuts 0) - before)) >= 1"
      ;;
    kill)  # shard 1 SIGKILLed while answering, restarted 2 s later
      coordinator "$out" --in-flight 16 --rate "$RATE"
      # For the last second before the kill its answers (34 Mbit/s of them) leave
      # at 20: they queue in the node, so it dies with an answer half written.
      pause $((FAULT_AT - 1))
      slow_link 1 20mbit
      pause 1
      stop_shard 1 KILL
      fast_link 1
      pause 2
      start_shard 1 || echo "faults: shard 1 did not restart" >&2
      wait "$COORD_PID"
      # A call was in flight when the node died (node_disconnected_exception).
      record kill "$out" "$showed" "$(only 1)" "$typed" "$recovered" "d['reconnects'] >= 1" \
        "d['failure_kinds'].get('node_disconnected_exception', 0) >= 1"
      ;;
    connect)  # proxy 2's backlog full (SYNs dropped) and its connections reset, for 5 s
      coordinator "$out" --in-flight 16 --rate "$RATE"
      pause "$FAULT_AT"
      proxy 2 dropsyn
      proxy 2 reset
      pause "$FAULT_FOR"
      proxy 2 accept
      wait "$COORD_PID"
      # Connects that hung failed at connect_timeout, not later (connect_overruns
      # == 0 above) and not at once (the SYNs were dropped, not refused).
      record connect "$out" "$showed" "$(only 2)" "$typed" "$recovered" "d['reconnects'] >= 1" \
        "d['connect_failures'].get('connect_transport_exception', 0) >= 1" \
        "d['max_connect_ms'] >= 0.9 * d['connect_timeout_ms']"
      ;;
    tls)  # one full pass over mutual TLS: delayed links, and a reset mid-run
      for i in 0 1 2; do
        stop_shard "$i"
        start_shard "$i" --certs "$RUN" || echo "faults: TLS shard $i did not start" >&2
        proxy "$i" delay 100 50
      done
      before=$(cuts 0)
      coordinator "$out" --in-flight 32 --rate "$RATE" --certs "$RUN"
      pause "$FAULT_AT"
      proxy 0 reset
      wait "$COORD_PID"
      cut=$(($(cuts 0) - before))
      all_pass
      for i in 0 1 2; do
        stop_shard "$i"
        start_shard "$i" || echo "faults: shard $i did not restart" >&2
      done
      record tls "$out" "d['tls']" "$(only 0)" "$typed" "$recovered" "d['reconnects'] >= 1" \
        "d['p50_latency_ms'] >= 100" "'chunks cut' and $cut >= 1"
      ;;
  esac
done
echo "faults: the suite took $((SECONDS - suite_start)) s"
echo "faults: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
