#!/usr/bin/env python3
"""Runs //bench:transport_bench once and writes its tables, from that one run, into
bench/RESULTS.md and docs/transport.md (between the markers of this script).

    python3 bench/transport_report.py                  # 5 interleaved repetitions
    python3 bench/transport_report.py --repetitions 9 --min-time 0.5

Every figure is the median over the repetitions (random interleaving, so a noisy
stretch of a shared machine spreads over every case). The ratios are medians of
the per-repetition ratios of the service to the raw socket, which tracks the
same noise in both. The raw JSON goes to bench/transport_results.json.
Standard library only.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import time
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import BINARY_HELP, cpu_kind, opt_binary  # noqa: E402  (shared with run.py)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN = "<!-- transport_report.py: begin -->"
END = "<!-- transport_report.py: end -->"


def cpu_model():
    return "%s, %d CPUs" % (cpu_kind(), os.cpu_count() or 0)


def run(binary, repetitions, min_time, out_json):
    cmd = [binary, "--benchmark_repetitions=%d" % repetitions,
           "--benchmark_enable_random_interleaving=true",
           "--benchmark_min_time=%g" % min_time,
           "--benchmark_format=json", "--benchmark_out=" + out_json,
           "--benchmark_out_format=json"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(out_json) as f:
        return json.load(f)


def key_of(run_name):
    """('Service', {'bytes': ..., 'inflight': ..., 'copy': ...}) from a run name."""
    parts = run_name.split("/")
    kind = parts[0].replace("BM_Transport_", "")
    args = {}
    for p in parts[1:]:
        if ":" in p and not p.startswith(("min_time", "real_time")):
            k, v = p.split(":", 1)
            args[k] = int(v)
    return kind, args


def collect(data):
    """(kind, inflight, copy) -> list (per repetition) of dicts of measures."""
    runs = defaultdict(list)
    for b in data["benchmarks"]:
        if b.get("run_type") != "iteration" or b.get("error_occurred"):
            continue
        kind, args = key_of(b["run_name"])
        m = {k: b[k] for k in ("cpu_us_per_MiB", "cpu_us_per_req", "csw_per_frame",
                               "ivcsw_per_frame", "p50_us", "p99_us", "bytes_per_second",
                               "items_per_second") if k in b}
        runs[(kind, args.get("inflight"), args.get("copy"))].append(m)
    return runs


def med(runs, key, measure):
    values = [r[measure] for r in runs.get(key, []) if measure in r]
    return statistics.median(values) if values else None


def ratio(runs, key, base, measure):
    """Median of per-repetition ratios (repetition i of each, interleaved)."""
    a = [r[measure] for r in runs.get(key, []) if measure in r]
    b = [r[measure] for r in runs.get(base, []) if measure in r]
    pairs = [x / y for x, y in zip(a, b) if y]
    return statistics.median(pairs) if pairs else None


def f(v, fmt="%.0f"):
    return "" if v is None else fmt % v


def tables(runs):
    lines = []
    lines.append("| 1 MiB responses | driver | in flight | Service wall | RawSocket wall | wall ratio | "
                 "Service CPU/MiB | RawSocket CPU/MiB | **CPU ratio** | copying serializer "
                 "CPU/MiB | ctx switches/frame (service, raw) |")
    lines.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for kind, driver in (("Service", DRIVERS[0]), ("ServiceReceiveInto", DRIVERS[0]),
                         ("ServiceCallerThread", DRIVERS[1])):
        for copy in (0, 1):
            for inflight in (1, 8):
                svc = (kind, inflight, copy)
                ser = ("ServiceSerialized", inflight, copy) if kind == "Service" else None
                raw = ("RawSocket", inflight, None)
                if svc not in runs or raw not in runs:
                    continue
                lines.append(large_row(runs, copy, driver, inflight, svc, ser, raw))
    lines.append("")
    lines.append("| 1 KiB request + 1 KiB response | driver | in flight | Service req/s | "
                 "RawSocket req/s | Service CPU/req | RawSocket CPU/req | **CPU ratio** | p50 "
                 "(service, raw) | p99 (service, raw) | ctx switches/req (service, raw) |")
    lines.append("|---|---|---:|---:|---:|---:|---:|---:|---|---|---|")
    for kind, driver in (("SmallService", DRIVERS[0]), ("SmallServiceCallerThread", DRIVERS[1])):
        for inflight in (1, 64):
            svc = (kind, inflight, None)
            raw = ("SmallRawSocket", inflight, None)
            if svc in runs and raw in runs:
                lines.append(small_row(runs, driver, inflight, svc, raw))
    tls_rows = []
    for copy in (0, 1):
        for inflight in (1, 8):
            tls = ("Tls", inflight, copy)
            svc = ("Service", inflight, copy)
            if tls in runs and svc in runs:
                tls_rows.append("| %s | %d | %s µs | %s µs | %s |" % (
                    "copy:%d" % copy, inflight, f(med(runs, tls, "cpu_us_per_MiB")),
                    f(med(runs, svc, "cpu_us_per_MiB")),
                    f(ratio(runs, tls, svc, "bytes_per_second"), "%.2f")))
    if tls_rows:
        lines.append("")
        lines.append("| mutual TLS, 1 MiB (I/O-thread driver) | in flight | Tls CPU/MiB | "
                     "Service CPU/MiB | wall ratio Tls / Service |")
        lines.append("|---|---:|---:|---:|---:|")
        lines.extend(tls_rows)
    return "\n".join(lines)


# How the benchmark keeps requests in flight (bench/transport_bench.cc Driver).
DRIVERS = ("I/O thread", "caller thread")


def gbs(runs, k):
    v = med(runs, k, "bytes_per_second")
    return f(v / 1e9, "%.2f GB/s") if v else ""


def large_label(kind, copy):
    if kind == "ServiceReceiveInto":
        return "received into the reader's buffer (ReceiveInto, copy:1)"
    return "reader copies out (copy:1)" if copy else "reader uses in place (copy:0)"


def large_row(runs, copy, driver, inflight, svc, ser, raw):
    return ("| %s | %s | %d | %s | %s | %s | %s µs | %s µs | **%s** | %s | %s, %s |" % (
                large_label(svc[0], copy),
                driver, inflight, gbs(runs, svc), gbs(runs, raw),
                f(ratio(runs, svc, raw, "bytes_per_second"), "%.2f"),
                f(med(runs, svc, "cpu_us_per_MiB")), f(med(runs, raw, "cpu_us_per_MiB")),
                f(ratio(runs, svc, raw, "cpu_us_per_MiB"), "%.2f×"),
                f(med(runs, ser, "cpu_us_per_MiB"), "%.0f µs") if ser else "",
                f(med(runs, svc, "csw_per_frame"), "%.1f"),
                f(med(runs, raw, "csw_per_frame"), "%.1f")))


def small_row(runs, driver, inflight, svc, raw):
    return ("| small RPC | %s | %d | %s | %s | %s µs | %s µs | **%s** | %s, %s µs | %s, %s µs "
            "| %s, %s |" % (
                driver, inflight, f(med(runs, svc, "items_per_second")),
                f(med(runs, raw, "items_per_second")),
                f(med(runs, svc, "cpu_us_per_req"), "%.1f"),
                f(med(runs, raw, "cpu_us_per_req"), "%.1f"),
                f(ratio(runs, svc, raw, "cpu_us_per_req"), "%.2f×"),
                f(med(runs, svc, "p50_us"), "%.0f"), f(med(runs, raw, "p50_us"), "%.0f"),
                f(med(runs, svc, "p99_us"), "%.0f"), f(med(runs, raw, "p99_us"), "%.0f"),
                f(med(runs, svc, "csw_per_frame"), "%.2f"),
                f(med(runs, raw, "csw_per_frame"), "%.2f")))


def splice(path, body):
    with open(path) as fh:
        text = fh.read()
    block = BEGIN + "\n" + body + "\n" + END
    if BEGIN in text:
        text = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: block, text,
                      flags=re.S)
    else:
        raise SystemExit("%s has no %s marker" % (path, BEGIN))
    with open(path, "w") as fh:
        fh.write(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", help=BINARY_HELP)
    ap.add_argument("--repetitions", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.5)
    ap.add_argument("--json", help="tabulate this JSON instead of running")
    args = ap.parse_args()
    out_json = os.path.join(ROOT, "bench/transport_results.json")
    load_before = os.getloadavg()[0]
    if args.json:
        with open(args.json) as fh:
            data = json.load(fh)
    else:
        data = run(args.binary or opt_binary("transport_bench"), args.repetitions, args.min_time, out_json)
    load_after = os.getloadavg()[0]
    runs = collect(data)
    reps = max(len(v) for v in runs.values())
    header = ("Run %s by `bench/transport_report.py` on %s: `//bench:transport_bench -c opt`, "
              "%d repetitions interleaved at random, medians; load average %.1f before, %.1f "
              "after (the machine is shared). CPU is user + system time of the whole process "
              "(client, server and I/O threads; getrusage) per MiB or per request; the ratios "
              "are medians of per-repetition ratios, service / raw socket (lower is better "
              "for CPU). Driver: how the client keeps requests in flight; *I/O thread*: each "
              "response callback sends the next request on the client's I/O thread (as the raw "
              "socket's one client thread does); *caller thread*: the benchmark thread waits "
              "for a free slot after each response (a thread hop per response)." % (data.get("context", {}).get("date", time.strftime("%Y-%m-%d")),
                             cpu_model(), reps, load_before, load_after))
    body = header + "\n\n" + tables(runs)
    splice(os.path.join(ROOT, "bench/RESULTS.md"), body)
    splice(os.path.join(ROOT, "docs/transport.md"), body)
    print(body)


if __name__ == "__main__":
    main()
