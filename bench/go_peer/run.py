#!/usr/bin/env python3
"""TSM blocks against InfluxDB 1.8.10's Go batch encoders, same inputs, interleaved.

InfluxDB's code is never committed: this assembles its tsdb/engine/tsm1 batch_*.go (and
what they use) from git checkouts you give it into a GOPATH under --out, with Debian's Go
(golang-go) and snappy (golang-github-golang-snappy-dev), and builds main.go beside them.
Both sides encode the same values (main.go draws bench/tsm_bench.cc's std::mt19937_64
stream); every case's block must hash (FNV-1a) to the same value on both sides, or the run
fails. Then --rounds rounds, each ours and then InfluxDB's, --reps shuffled repetitions a
side; CPU time per 1,000-value block, the median of the rounds' medians (min-max of them).

  python3 bench/go_peer/run.py --influxdb GITDIR --encoding GITDIR --bitstream GITDIR

GITDIRs: github.com/influxdata/influxdb (tag v1.8.10), github.com/jwilder/encoding and
github.com/dgryski/go-bitstream (HEAD), bare or not. Prints one line a case:
  tsm-go <Type><Op>/<Case>: wirestream <ns>, influxdb <ns>, <ratio>x
InfluxDB's encoders rewrite their input in place, so each timed call starts from a copy;
the copy's own time (EncodeCopy) is subtracted from theirs, to their advantage.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TSM1 = ["batch_boolean", "batch_float", "batch_integer", "batch_string", "batch_timestamp",
        "bool", "float", "int", "string", "timestamp", "bit_reader"]
# The two helpers the batch encoders take from encoding.go, which pulls in all of tsdb.
SHIM = """package tsmgo

func ZigZagEncode(x int64) uint64 { return uint64(uint64(x<<1) ^ uint64((int64(x) >> 63))) }
func ZigZagDecode(v uint64) int64 { return int64((v >> 1) ^ uint64((int64(v&1)<<63)>>63)) }
"""
CASES = r"^BM_Tsm(Integer|Time|Float|Boolean|String)(Encode|Decode)_Block(Views)?_[A-Za-z]+$"


def git_show(gitdir, rev, path):
    return subprocess.run(["git", "--git-dir", gitdir, "show", f"{rev}:{path}"], check=True,
                          capture_output=True).stdout


def git_files(gitdir, rev, folder):
    out = subprocess.run(["git", "--git-dir", gitdir, "ls-tree", "--name-only", rev, folder + "/"],
                         check=True, capture_output=True, text=True).stdout.split()
    return [f for f in out if f.endswith(".go") and not f.endswith("_test.go")]


def gitdir_of(path):
    return path if os.path.exists(os.path.join(path, "HEAD")) and not os.path.exists(
        os.path.join(path, ".git")) else os.path.join(path, ".git")


def assemble(args):
    gopath = os.path.join(args.out, "gopath")
    shutil.rmtree(gopath, ignore_errors=True)

    def put(rel, data):
        p = os.path.join(gopath, "src", rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)

    influx = gitdir_of(args.influxdb)
    for f in git_files(influx, "v1.8.10", "pkg/encoding/simple8b"):
        put("github.com/influxdata/influxdb/" + f, git_show(influx, "v1.8.10", f))
    for name in TSM1:
        src = git_show(influx, "v1.8.10", f"tsdb/engine/tsm1/{name}.go")
        put(f"tsmgo/{name}.go", re.sub(rb"^package tsm1", b"package tsmgo", src, flags=re.M))
    put("tsmgo/shim.go", SHIM.encode())
    for gitdir, rel, folder in [(gitdir_of(args.encoding), "github.com/jwilder/encoding", "simple8b"),
                                (gitdir_of(args.bitstream), "github.com/dgryski/go-bitstream", "")]:
        files = git_files(gitdir, "HEAD", folder) if folder else [
            f for f in subprocess.run(["git", "--git-dir", gitdir, "ls-tree", "--name-only", "HEAD"],
                                      check=True, capture_output=True, text=True).stdout.split()
            if f.endswith(".go") and not f.endswith("_test.go")]
        for f in files:
            put(f"{rel}/{f}", git_show(gitdir, "HEAD", f))
    snappy = "/usr/share/gocode/src/github.com/golang/snappy"
    if not os.path.isdir(snappy):
        sys.exit(f"go_peer: {snappy} is missing (apt-get install golang-github-golang-snappy-dev)")
    os.makedirs(os.path.join(gopath, "src/github.com/golang"), exist_ok=True)
    os.symlink(snappy, os.path.join(gopath, "src/github.com/golang/snappy"))
    with open(os.path.join(ROOT, "bench/go_peer/main.go"), "rb") as f:
        put("peer/main.go", f.read())
    binary = os.path.join(args.out, "influxdb_tsm_peer")
    env = dict(os.environ, GOPATH=gopath, GO111MODULE="off", GOFLAGS="")
    subprocess.run(["go", "build", "-o", binary, "."], cwd=os.path.join(gopath, "src/peer"),
                   env=env, check=True)
    return binary


def ours_once(binary, reps):
    out = subprocess.run([binary, f"--benchmark_filter={CASES}", f"--benchmark_repetitions={reps}",
                          "--benchmark_enable_random_interleaving=true", "--benchmark_min_time=0.2",
                          "--benchmark_format=json"], check=True, capture_output=True, text=True).stdout
    data = json.loads(out[out.index("{"):out.rindex("}") + 1])
    times, labels = {}, {}
    for b in data["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        times.setdefault(b["run_name"], []).append(b["cpu_time"])
        if b.get("label"):
            labels[b["run_name"]] = b["label"].split()[-1]
    return {k: statistics.median(v) for k, v in times.items()}, labels


def go_once(binary, reps):
    out = subprocess.run([binary, "-reps", str(reps)], check=True, capture_output=True, text=True).stdout
    times, hashes = {}, {}
    for line in out.splitlines():
        name, *fields = line.split()
        kv = dict(f.split("=") for f in fields)
        times[name] = float(kv["median_ns"])
        hashes[name] = kv["fnv"]
    return times, hashes


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--influxdb", required=True)
    ap.add_argument("--encoding", required=True)
    ap.add_argument("--bitstream", required=True)
    ap.add_argument("--out", default="/tmp/wirestream-go-peer")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    go_bin = assemble(args)
    subprocess.run(["bazel", "build", "-c", "opt", "//bench:serialization_bench"], cwd=ROOT, check=True)
    ours_bin = os.path.join(args.out, "serialization_bench")
    shutil.copyfile(os.path.join(ROOT, "bazel-bin/bench/serialization_bench"), ours_bin)
    os.chmod(ours_bin, 0o755)

    ours, theirs = {}, {}
    for r in range(args.rounds):
        with open("/proc/loadavg") as f:
            print(f"round {r + 1}: load average {f.read().split()[0]}", file=sys.stderr)
        t, labels = ours_once(ours_bin, args.reps)
        for k, v in t.items():
            ours.setdefault(k, []).append(v)
        g, hashes = go_once(go_bin, args.reps)
        for k, v in g.items():
            theirs.setdefault(k, []).append(v)
    bad = [k for k, h in labels.items() if hashes.get(k) != h]
    if bad or not labels:
        sys.exit(f"go_peer: blocks differ between the sides (FNV-1a): {bad or 'none labelled'}")
    print(f"go_peer: {len(labels)} blocks identical on both sides (FNV-1a)")
    rows = 0
    for name in sorted(ours):
        if name.replace("BlockViews", "Block") not in theirs:
            continue
        m = re.match(r"BM_Tsm(\w+?)(Encode|Decode)_Block(Views)?_(\w+)", name)
        kind, op, views, case = m.groups()
        mine = statistics.median(ours[name])
        # Our views form (decodeStringViews) is the one shaped like Go's: strings that
        # point into one decoded buffer; decodeStringArray allocates a std::string each.
        go = theirs[name.replace("BlockViews", "Block")]
        if op == "Encode":
            copy = theirs[f"BM_Tsm{kind}EncodeCopy_Block_{case}"] if f"BM_Tsm{kind}EncodeCopy_Block_{case}" in theirs else [0.0] * len(go)
            go = [g - c for g, c in zip(go, copy)]
        gm = statistics.median(go)
        case = case + " (views)" if views else case
        print(f"tsm-go {kind}{op}/{case}: wirestream {mine:.0f} ns ({min(ours[name]):.0f}-{max(ours[name]):.0f}), "
              f"influxdb {gm:.0f} ns ({min(go):.0f}-{max(go):.0f}), {gm / mine:.2f}x")
        rows += 1
    print(f"go_peer: {rows} cases, {args.rounds} rounds of {args.reps} repetitions a side")


if __name__ == "__main__":
    main()
