#!/usr/bin/env python3
"""Draws bench/results.svg from serialization_bench's JSON output.

    bazel run -c opt //bench:serialization_bench -- \
        --benchmark_out=/tmp/bench.json --benchmark_out_format=json
    python3 bench/chart.py /tmp/bench.json > bench/results.svg

One row per operation and case (BM_<Op>_<Impl>_<Case> or BM_<Op>_<Impl>/<arg>),
one bar per implementation: how many times faster than protobuf it is (CPU
time per iteration; the median aggregate when the run had repetitions, else
the median of the iteration runs), on a log axis with protobuf at 1. The
memcpy bound appears in the StringTerms rows it bounds. Standard library only.
"""
import json
import math
import statistics
import sys
from collections import OrderedDict
from xml.sax.saxutils import escape

COLORS = OrderedDict([
    ("Wirestream", "#1f77b4"),
    ("Unrolled", "#9ecae1"),
    ("EsLoop", "#c6dbef"),
    ("Memcpy", "#7f7f7f"),
])
EXTRA_COLORS = ["#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"]
PEER = "Protobuf"


def parse_name(name):
    """BM_<Op>_<Impl>[_<Case>][/<arg>] -> (op, impl, case), or None."""
    if not name.startswith("BM_"):
        return None
    rest, _, arg = name[3:].partition("/")
    parts = rest.split("_", 2)
    if len(parts) < 2:
        return None
    op, impl = parts[0], parts[1]
    case = parts[2] if len(parts) == 3 else ""
    case = "/".join(p for p in (case, arg) if p)
    return op, impl, case


def _ns_per_unit(run):
    return {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[run.get("time_unit", "ns")]


def cpu_ns(run):
    return run["cpu_time"] * _ns_per_unit(run)


def real_ns(run):
    """Wall-clock ns per iteration (bench/es_java_report.py, beside JMH's wall-clock)."""
    return run["real_time"] * _ns_per_unit(run)


def load_times(path):
    """name -> CPU ns per iteration."""
    with open(path) as f:
        data = json.load(f)
    iterations, medians = {}, {}
    for run in data["benchmarks"]:
        if run.get("error_occurred"):
            continue
        name = run.get("run_name", run["name"])
        if run.get("run_type") == "aggregate":
            if run.get("aggregate_name") == "median":
                medians[name] = cpu_ns(run)
        else:
            iterations.setdefault(name, []).append(cpu_ns(run))
    times = {n: statistics.median(v) for n, v in iterations.items()}
    times.update(medians)
    return times, data.get("context", {})


def rows_from(times):
    """[(label, [(impl, speedup vs protobuf, ns)])] for rows that have protobuf."""
    groups = OrderedDict()
    bounds = {}
    for name, ns in times.items():
        parsed = parse_name(name)
        if not parsed:
            continue
        op, impl, case = parsed
        if op == "Memcpy":
            subject = impl[:-5] if impl.endswith("Bytes") else impl
            bounds[(subject, case)] = ns
            continue
        groups.setdefault((op, case), {})[impl] = ns
    rows = []
    for (op, case), impls in groups.items():
        if PEER not in impls:
            continue
        peer = impls[PEER]
        bars = [(impl, peer / ns, ns) for impl, ns in impls.items() if impl != PEER]
        for (subject, bcase), ns in bounds.items():
            if op.startswith(subject) and case == bcase and op.endswith("Serialize"):
                bars.append(("Memcpy", peer / ns, ns))
        order = list(COLORS)
        bars.sort(key=lambda b: order.index(b[0]) if b[0] in order else len(order))
        rows.append(("%s %s (protobuf %s)" % (op, case, fmt_ns(peer)), bars))
    return rows


def fmt_ns(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return "%.3g %s" % (ns / scale, unit)
    return "%.3g ns" % ns


def svg(rows, context):
    bar_h, gap, label_w, plot_w, top = 14, 10, 300, 520, 64
    lo, hi = 0.1, 100.0
    for _, bars in rows:
        for _, ratio, _ in bars:
            lo, hi = min(lo, ratio / 1.5), max(hi, ratio * 1.5)
    log_lo, log_hi = math.log10(lo), math.log10(hi)

    def x(v):
        return label_w + (math.log10(v) - log_lo) / (log_hi - log_lo) * plot_w

    height = top + sum(len(b) * bar_h + gap for _, b in rows) + 60
    width = label_w + plot_w + 150
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="11">' % (width, height),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="10" y="20" font-size="14" font-weight="bold">wirestream vs protobuf '
           '3.21: times faster (CPU time, log scale; protobuf = 1)</text>',
           '<text x="10" y="38">%s</text>' % escape(
               "%s, %s CPUs, %s" % (context.get("host_name", "?"),
                                    context.get("num_cpus", "?"),
                                    context.get("date", "?")))]
    extra = iter(EXTRA_COLORS)
    colors = dict(COLORS)
    y = top
    for decade in range(math.floor(log_lo), math.ceil(log_hi) + 1):
        for m in (1, 2, 5):
            v = m * 10 ** decade
            if lo <= v <= hi:
                out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>'
                           % (x(v), top - 6, x(v), height - 50))
                out.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#666">%gx</text>'
                           % (x(v), height - 36, v))
    for label, bars in rows:
        out.append('<text x="%d" y="%d" text-anchor="end">%s</text>'
                   % (label_w - 8, y + bar_h * len(bars) / 2 + 4, escape(label)))
        for impl, ratio, ns in bars:
            if impl not in colors:
                colors[impl] = next(extra, "#bcbd22")
            x0, x1 = x(min(1, ratio)), x(max(1, ratio))
            out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>'
                       % (x0, y, max(x1 - x0, 1), bar_h - 2, colors[impl]))
            out.append('<text x="%.1f" y="%d">%s %.2fx (%s)</text>'
                       % (x(max(1, ratio)) + 4, y + bar_h - 4, escape(impl), ratio, fmt_ns(ns)))
            y += bar_h
        y += gap
    out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="black" '
               'stroke-dasharray="4,3"/>' % (x(1), top - 10, x(1), height - 50))
    out.append('<text x="%.1f" y="%d" text-anchor="middle">protobuf</text>'
               % (x(1), top - 14))
    lx = 10
    for impl, color in colors.items():
        out.append('<rect x="%d" y="%d" width="10" height="10" fill="%s"/>'
                   % (lx, height - 20, color))
        out.append('<text x="%d" y="%d">%s</text>' % (lx + 14, height - 11, escape(impl)))
        lx += 24 + 7 * len(impl)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: chart.py BENCHMARK_JSON > chart.svg\n")
        return 2
    times, context = load_times(argv[1])
    rows = rows_from(times)
    if not rows:
        sys.stderr.write("chart.py: no benchmark has a protobuf peer in %s\n" % argv[1])
        return 1
    sys.stdout.write(svg(rows, context))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
