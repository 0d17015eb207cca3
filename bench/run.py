#!/usr/bin/env python3
"""Runs //bench:serialization_bench once and regenerates every published figure.

    python3 bench/run.py                      # 5 interleaved repetitions, all suites
    python3 bench/run.py --filter 'VInt_|StringTerms' --repetitions 7 --min-time 0.1

One run: --benchmark_repetitions=N --benchmark_enable_random_interleaving=true
(Google Benchmark >= 1.6; Debian's 1.7.1 has it), so that a noisy stretch of a
shared machine spreads over every benchmark instead of falling on one. Every
figure is the median of the N repetitions' CPU time per iteration, with the
min-max beside it. From that one run it rewrites

  bench/results.json        the raw output (bench/chart.py draws results.svg)
  bench/results.svg         via chart.py
  bench/RESULTS.md          the section of this CPU kind (lscpu's model name,
                            family and model), between run.py's markers; the
                            sections of other CPUs are kept as they are
  README.md                 the benchmark table, between run.py's markers

Standard library only.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from collections import OrderedDict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chart import cpu_ns, parse_name  # noqa: E402  (one parser of benchmark names)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEER = "Protobuf"
OURS = "Wirestream"
OPS = ["WriteVInt", "ReadVInt", "StringTermsSerialize", "StringTermsDeserialize"]
CASES = ["OneByte", "Mixed", "FiveByte", "Geometric", "1000", "Realistic/1000"]


BINARY_HELP = ("a binary built elsewhere (default: this tree's, built here with -c opt: "
               "bazel-bin holds whatever configuration was built last)")


def opt_binary(name):
    """Builds //bench:<name> with -c opt and returns its path (bench/transport_report.py
    uses this too)."""
    subprocess.run(["bazel", "build", "-c", "opt", "//bench:" + name],
                   check=True, cwd=ROOT, stdout=sys.stderr)
    return os.path.join(ROOT, "bazel-bin/bench", name)


def cpu_kind():
    """'Intel(R) Xeon(R) Processor (family 6, model 167)' from lscpu."""
    fields = {}
    out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return "%s (family %s, model %s)" % (fields.get("Model name", "unknown CPU"),
                                         fields.get("CPU family", "?"), fields.get("Model", "?"))


def collect(data):
    """name -> list of CPU times (ns) of its repetitions, in run order of names."""
    runs = OrderedDict()
    for b in data["benchmarks"]:
        if b.get("run_type") != "iteration" or b.get("error_occurred"):
            continue
        runs.setdefault(b["run_name"], []).append(cpu_ns(b))
    return runs


def fmt(ns):
    if ns < 1e3:
        return "%.1f ns" % ns
    if ns < 1e6:
        return "%.3g µs" % (ns / 1e3)
    if ns < 1e9:
        return "%.3g ms" % (ns / 1e6)
    return "%.3g s" % (ns / 1e9)


def cell(times):
    return "%s (%s–%s)" % (fmt(statistics.median(times)), fmt(min(times)), fmt(max(times)))


def table(runs, rows_wanted=None, shown=None):
    """Markdown: one row per (op, case), one column per implementation. The
    names of the runs in it are added to `shown`."""
    rows = OrderedDict()
    names = {}
    impls = []
    for name, times in runs.items():
        p = parse_name(name)
        if not p:
            continue
        op, impl, case = p
        if op in ("Memcpy", "Walk"):
            op, impl = impl, op  # BM_Memcpy_StringTermsBytes -> a column of its own
            op = "StringTerms*"
        rows.setdefault((op, case), {})[impl] = times
        names.setdefault((op, case), []).append(name)
        if impl not in impls:
            impls.append(impl)
    order = [OURS, PEER] + sorted(i for i in impls if i not in (OURS, PEER))
    out = []
    keep = []
    # Interleaving runs benchmarks in random order: rows go in a fixed one.
    case_rank = {c: i for i, c in enumerate(CASES)}
    ranked = sorted(rows.items(), key=lambda kv: (
        OPS.index(kv[0][0]) if kv[0][0] in OPS else len(OPS), kv[0][0],
        case_rank.get(kv[0][1], len(CASES)), kv[0][1]))
    for (op, case), row in ranked:
        if rows_wanted is not None and not rows_wanted(op, case):
            continue
        if PEER not in row and not any(i.startswith(OURS) and i != OURS for i in row):
            continue  # suites that compare only their own variants (simd, transport)
        keep.append(((op, case), row))
        if shown is not None:
            shown.update(names[(op, case)])
    cols = [i for i in order if any(i in row for _, row in keep)]
    if not keep:
        return ""
    out.append("| operation | case | " + " | ".join(cols) + " |")
    out.append("|---|---|" + "---:|" * len(cols))
    for (op, case), row in keep:
        peer = statistics.median(row[PEER]) if PEER in row else None
        cells = []
        for c in cols:
            if c not in row:
                cells.append("")
                continue
            text = cell(row[c])
            if peer and c != PEER:
                text += " **%.2fx**" % (peer / statistics.median(row[c]))
            cells.append(text)
        out.append("| %s | %s | %s |" % (op, case, " | ".join(cells)))
    return "\n".join(out)


def bounds(runs):
    """StringTerms serialize/deserialize against the memcpy and walk bounds."""
    out = []
    for suffix in ("", "_Realistic"):
        memcpy = runs.get("BM_Memcpy_StringTermsBytes%s/1000" % suffix)
        walk = runs.get("BM_Walk_StringTermsTree%s/1000" % suffix)
        for op in ("Serialize", "Deserialize"):
            ours = runs.get("BM_StringTerms%s_Wirestream%s/1000" % (op, suffix))
            if not (memcpy and walk and ours):
                continue
            m = statistics.median(ours)
            out.append("| StringTerms%s%s | %s | %.1fx memcpy (%s) | %.2fx the walk (%s) |" % (
                op, suffix, fmt(m), m / statistics.median(memcpy), fmt(statistics.median(memcpy)),
                m / statistics.median(walk), fmt(statistics.median(walk))))
    if not out:
        return ""
    return "\n".join(["| ours | median | against memcpy of our bytes | against a walk of the tree |",
                      "|---|---:|---:|---:|"] + out)


def others(runs, shown):
    """Every benchmark of the run that the comparison tables above leave out
    (SIMD kernels, TSM codecs, transport, ablations): one row each."""
    rows = [(name, times) for name, times in runs.items() if name not in shown]
    if not rows:
        return ""
    out = ["| benchmark | median (min–max) |", "|---|---:|"]
    for name, times in sorted(rows):
        out.append("| `%s` | %s |" % (name, cell(times)))
    return "\n".join(out)


def replace_between(text, begin, end, body):
    block = begin + "\n" + body.rstrip() + "\n" + end
    if begin in text and end in text:
        return text[:text.index(begin)] + block + text[text.index(end) + len(end):]
    return text.rstrip() + "\n\n" + block + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", help=BINARY_HELP)
    ap.add_argument("--repetitions", type=int, default=5)
    ap.add_argument("--filter", default="")
    ap.add_argument("--min-time", help="--benchmark_min_time, seconds (bench_main's default: 0.2)")
    ap.add_argument("--json", help="use this earlier output instead of running")
    args = ap.parse_args()
    if args.repetitions < 5:
        sys.exit("run.py: publish medians of at least 5 repetitions")

    json_path = os.path.join(ROOT, "bench/results.json")
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    if args.json:
        json_path = args.json
    else:
        args.binary = args.binary or opt_binary("serialization_bench")
        cmd = [args.binary, "--benchmark_repetitions=%d" % args.repetitions,
               "--benchmark_enable_random_interleaving=true",
               "--benchmark_out=" + json_path, "--benchmark_out_format=json"]
        if args.filter:
            cmd.append("--benchmark_filter=" + args.filter)
        if args.min_time:
            cmd.append("--benchmark_min_time=" + args.min_time)
        print("run.py:", " ".join(cmd), file=sys.stderr)
        subprocess.run(cmd, check=True, stdout=sys.stderr)
    with open(json_path) as f:
        data = json.load(f)
    if args.json:
        started = data.get("context", {}).get("date", started)
    runs = collect(data)
    reps = min(len(t) for t in runs.values())
    kind = cpu_kind()
    load = "not recorded" if args.json else "%.1f" % os.getloadavg()[0]

    ctx = data.get("context", {})
    # A filtered run replaces the whole section and README table with what it
    # ran: say so, so that it cannot pass for the full suite.
    binary = "`//bench:serialization_bench`"
    if args.filter:
        binary += " filtered to `%s`" % args.filter
        print("run.py: a filtered run: RESULTS.md's section and the README table now hold only "
              "its benchmarks", file=sys.stderr)
    shown = set()
    parts = [
        "## %s" % kind,
        "Run %s by `bench/run.py`: %s, %d repetitions interleaved "
        "at random; each cell is the **median CPU time per iteration (min–max)**, bold the "
        "times faster than protobuf (> 1 is better). %d CPUs, load average %s at the end "
        "(the machine was shared with other builds: compare within a row, not across runs). "
        "Allocation figures come from `//bench:alloc_bench` (the timed binary has the plain "
        "allocator)." % (started, binary, reps, ctx.get("num_cpus", 0), load),
        table(runs, lambda op, case: "VInt" in op, shown),
        table(runs, lambda op, case: op.startswith("StringTerms"), shown),
        bounds(runs),
    ]
    rest = others(runs, shown)
    if rest:
        parts += ["Every other benchmark of the same run:", rest]
    section = "\n\n".join(p for p in parts if p) + "\n"
    key = re.sub(r"[^a-z0-9]+", "-", kind.lower()).strip("-")
    results_md = os.path.join(ROOT, "bench/RESULTS.md")
    with open(results_md) as f:
        text = f.read()
    text = replace_between(text, "<!-- run.py: begin %s -->" % key,
                           "<!-- run.py: end %s -->" % key, section)
    with open(results_md, "w") as f:
        f.write(text)

    readme = os.path.join(ROOT, "README.md")
    with open(readme) as f:
        text = f.read()
    text = replace_between(
        text, "<!-- run.py: readme begin -->", "<!-- run.py: readme end -->",
        "From the last run of `bench/run.py` on %s (%s%s; median of %d interleaved repetitions, "
        "min–max in brackets; bold: times faster than protobuf):\n\n%s" % (
            kind, started, ", filtered to `%s`" % args.filter if args.filter else "", reps,
            "\n\n".join(t for t in (table(runs, lambda op, case: "VInt" in op),
                                     table(runs, lambda op, case: op.startswith("StringTerms")))
                         if t)))
    with open(readme, "w") as f:
        f.write(text)

    chart = os.path.join(ROOT, "bench/chart.py")
    with open(os.path.join(ROOT, "bench/results.svg"), "w") as f:
        subprocess.run([sys.executable, chart, json_path], check=True, stdout=f)
    print("run.py: wrote bench/RESULTS.md (%s), README.md, bench/results.svg" % kind,
          file=sys.stderr)


if __name__ == "__main__":
    main()
