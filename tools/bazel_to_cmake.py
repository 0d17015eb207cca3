#!/usr/bin/env python3
"""Writes cmake/bazel_targets.cmake from the BUILD.bazel files, so that CMake builds the
same libraries, tools and tests from the same source lists as Bazel: one list, two builds.

  tools/bazel_to_cmake.py           rewrite cmake/bazel_targets.cmake
  tools/bazel_to_cmake.py --check   exit 1 if it is stale (CI runs this)
  tools/bazel_to_cmake.py --root DIR --check   the same for another tree (its tests)

The BUILD files are evaluated as Python with stand-ins for the few rules this project uses
(cc_library, cc_binary, cc_test, sh_test, filegroup, genrule, glob, load of .bzl macros).
Each becomes one call of the CMake functions in cmake/BazelRules.cmake. Packages that need
Bazel-only machinery (bench/: genrules over peers' code generators) are left to Bazel.

It translates or refuses, never guesses: an attribute outside ATTRIBUTES, a select() with a
key other than //conditions:default, or linkstatic where CMake would not link statically
stops it with a message naming the rule.
"""
import glob as globmod
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join("cmake", "bazel_targets.cmake")
# Built by Bazel only: the benchmark suite (code generators of the peers) and its tests, the
# README and header-example checks (genrules extract their blocks); and the standalone
# consumer projects.
SKIP = ("bench", "tests/bench", "tests/readme", "tests/header_examples", "third_party",
        "examples/consumer", "examples/bazel_consumer")
# Packages whose non-testonly libraries are installed and exported as wirestream::<name>.
NOT_LIBRARY = ("tests", "fuzz", "examples", "tools", "bench")
# External repositories -> what CMake links (see cmake/BazelRules.cmake for the packages).
EXTERNAL = {
    "@gtest//:gtest": "GTest::gtest",
    "@gtest//:gtest_main": "GTest::gtest_main",
    "@gtest//:gmock": "GTest::gmock",
    "@benchmark//:benchmark": "benchmark::benchmark",
    "@boost//:boost": "Boost::headers;Threads::Threads",
    "@nlohmann_json//:nlohmann_json": "nlohmann_json::nlohmann_json",
    "@cli11//:cli11": "CLI11::CLI11",
    "@lz4//:lz4": "lz4",
    "@zlib//:zlib": "ZLIB::ZLIB",
    "@openssl//:openssl": "OpenSSL::SSL;OpenSSL::Crypto",
    "@hwy//:hwy": "hwy::hwy",
    "@snappy//:snappy": "Snappy::snappy",
    "@zstd//:zstd": "zstd",
}


# What each rule kind may set, and how CMake gets it. Anything else stops the generator.
_COMMON = {"name", "srcs", "deps", "copts", "visibility", "testonly"}
ATTRIBUTES = {
    # hdrs and textual_hdrs: installed with an exported library; alwayslink: linked whole
    # (ALWAYSLINK); linkstatic: what CMake does anyway for the libraries it builds static.
    "cc_library": _COMMON | {"hdrs", "textual_hdrs", "alwayslink", "linkstatic", "defines",
                             "linkopts"},
    "cc_binary": _COMMON | {"linkopts", "defines"},
    # CMake links tests and binaries against the static libraries: linkstatic is the rule.
    "cc_test": _COMMON | {"args", "data", "env", "linkopts", "linkstatic", "size", "defines"},
    "sh_test": {"name", "srcs", "args", "data", "env", "size", "visibility"},
    "filegroup": {"name", "srcs", "visibility", "testonly"},
    "config_setting": None,  # not translated (nothing here selects on it): any attribute
    "test_suite": None,
    "genrule": None,  # refused below, with its own message
    "sh_binary": None,
}


def refuse(message):
    sys.exit("bazel_to_cmake: " + message)


def select(branches):
    """Only the default branch has a CMake meaning here; any other key would be guessed."""
    keys = sorted(k for k in branches if k != "//conditions:default")
    if keys:
        refuse("select() on %s has no CMake translation; teach tools/bazel_to_cmake.py the "
               "condition before using it" % ", ".join(keys))
    return branches["//conditions:default"]


class GlobList(list):
    """glob()'s files; `folders` when it took whole folders, which a filegroup hands to CMake
    to glob itself (GLOB_RECURSE at configure time), so that adding a file to a fuzz corpus
    does not make the generated file stale."""

    folders = None


class Rule:
    def __init__(self, kind, pkg, kw):
        self.kind, self.pkg, self.kw = kind, pkg, kw
        self.name = kw["name"]

    @property
    def label(self):
        return "//%s:%s" % (self.pkg, self.name)


def norm_label(pkg, label):
    if label.startswith("@"):
        repo, _, rest = label.partition("//")
        if not rest:
            return "%s//:%s" % (repo, repo[1:])
        return "%s//%s" % (repo, rest if ":" in rest else rest + ":" + rest.split("/")[-1])
    if label.startswith(":"):
        return "//%s%s" % (pkg, label)
    if label.startswith("//"):
        p, _, n = label[2:].partition(":")
        return "//%s:%s" % (p, n or p.split("/")[-1])
    return "//%s:%s" % (pkg, label)  # a file or rule in this package


def cmake_name(label):
    p, _, n = label[2:].partition(":")
    base = p.split("/")[-1]
    return (p.replace("/", "_") if n == base else "%s_%s" % (p.replace("/", "_"), n))


def export_name(rule):
    base = rule.pkg.replace("/", "_")
    return base if rule.name == rule.pkg.split("/")[-1] else "%s_%s" % (base, rule.name)


def evaluate(pkg, rules):
    pkg_dir = os.path.join(ROOT, pkg)

    def glob(include, exclude=(), **_):
        found = set()
        for pattern in include:
            for f in globmod.glob(os.path.join(pkg_dir, pattern), recursive=True):
                if os.path.isfile(f):
                    found.add(os.path.relpath(f, pkg_dir))
        for pattern in exclude:
            for f in globmod.glob(os.path.join(pkg_dir, pattern), recursive=True):
                found.discard(os.path.relpath(f, pkg_dir))
        result = GlobList(sorted(found))
        if not exclude and all(p.endswith("/**") for p in include):
            result.folders = [os.path.join(pkg, p[:-3]) for p in include]  # whole folders
        return result

    def rule(kind):
        return lambda **kw: rules.append(Rule(kind, pkg, kw))

    class Native:
        pass

    native = Native()
    funcs = {k: rule(k) for k in ("cc_library", "cc_binary", "cc_test", "sh_test", "filegroup",
                                  "genrule", "sh_binary", "test_suite", "config_setting")}
    for k, v in funcs.items():
        setattr(native, k, v)
    native.glob = glob
    native.package_name = lambda: pkg
    env = dict(funcs)
    env.update(glob=glob, native=native, package=lambda **kw: None,
               exports_files=lambda *a, **kw: None, select=select)

    def load(into, path, *symbols):
        """load() into `into` (the BUILD file's names, or a .bzl's own): runs the .bzl with
        the same stand-ins, its own loads included."""
        p = path.lstrip("/").replace(":", "/").lstrip("/")
        bzl_env = {"native": native, "glob": glob, "select": select}
        bzl_env["load"] = lambda path, *symbols: load(bzl_env, path, *symbols)
        with open(os.path.join(ROOT, p)) as f:
            exec(compile(f.read(), p, "exec"), bzl_env)
        for s in symbols:
            into[s] = bzl_env[s]

    env["load"] = lambda path, *symbols: load(env, path, *symbols)
    with open(os.path.join(pkg_dir, "BUILD.bazel")) as f:
        exec(compile(f.read(), os.path.join(pkg, "BUILD.bazel"), "exec"), env)


def topological(rules, by_label):
    """Dependencies before their users (CMake needs a target defined before it is linked by
    name, and the pkg-config link line lists users first)."""
    done, out = set(), []

    def visit(r):
        if r.label in done:
            return
        done.add(r.label)
        for d in r.kw.get("deps", []):
            lab = norm_label(r.pkg, d)
            if lab in by_label:
                visit(by_label[lab])
        out.append(r)

    for r in rules:
        visit(r)
    return out


def generate():
    rules = []
    for dirpath, dirnames, filenames in os.walk(ROOT):
        rel = os.path.relpath(dirpath, ROOT)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "bazel-")))
        if rel == "." or any(rel == s or rel.startswith(s + "/") for s in SKIP):
            continue
        if "BUILD.bazel" in filenames:
            evaluate(rel, rules)
    for r in rules:
        allowed = ATTRIBUTES[r.kind]
        unknown = sorted(set(r.kw) - allowed) if allowed is not None else []
        if unknown:
            refuse("%s %s sets %s, which has no CMake translation here; translate it in "
                   "tools/bazel_to_cmake.py and cmake/BazelRules.cmake, or drop it"
                   % (r.kind, r.label, ", ".join(unknown)))
    by_label = {r.label: r for r in rules}
    rules = topological(rules, by_label)

    def files(rule, attr):
        out = []
        for item in rule.kw.get(attr, []):
            lab = norm_label(rule.pkg, item)
            if lab in by_label and by_label[lab].kind == "filegroup":
                out.append("@" + cmake_name(lab))
            elif lab in by_label:
                out.append("$<TARGET_FILE:%s>" % cmake_name(lab))
            else:  # a source file
                out.append(os.path.join(*lab[2:].split(":")))
        return out

    def deps(rule):
        out = []
        for d in rule.kw.get("deps", []):
            lab = norm_label(rule.pkg, d)
            if lab.startswith("@"):
                if lab not in EXTERNAL:
                    sys.exit("bazel_to_cmake: no CMake mapping for %s (used by %s); add it to "
                             "EXTERNAL" % (lab, rule.label))
                out += EXTERNAL[lab].split(";")
            else:
                out.append(cmake_name(lab))
        return out

    def expand(rule, arg):
        # $(rootpath X) / $(location X) / $(locations X): paths from the test's directory,
        # which is the build tree (binaries) with the data files linked in beside them.
        for fn in ("rootpath", "locations", "location", "rootpaths"):
            while "$(%s " % fn in arg:
                start = arg.index("$(%s " % fn)
                end = arg.index(")", start)
                lab = norm_label(rule.pkg, arg[start + len(fn) + 3:end])
                target = by_label.get(lab)
                if target is None:  # a source file
                    rep = os.path.join(*lab[2:].split(":"))
                elif target.kind == "filegroup":
                    rep = "@" + cmake_name(lab)
                else:
                    rep = os.path.join(target.pkg, target.name)
                arg = arg[:start] + rep + arg[end + 1:]
        return arg.split(" ") if arg else []

    lines = ["# Generated by tools/bazel_to_cmake.py from the BUILD.bazel files: do not edit.",
             "# CI fails when this file is stale (tools/bazel_to_cmake.py --check).", ""]
    for r in rules:
        k = r.kw
        if r.kind == "filegroup":  # a list that DATA and ARGS name as @<name>
            if getattr(k["srcs"], "folders", None):
                lines.append("file(GLOB_RECURSE WS_FG_%s LIST_DIRECTORIES false RELATIVE "
                             "${PROJECT_SOURCE_DIR} CONFIGURE_DEPENDS" % cmake_name(r.label))
                lines += ["    ${PROJECT_SOURCE_DIR}/%s/*" % d for d in k["srcs"].folders]
            else:
                lines.append("set(WS_FG_%s" % cmake_name(r.label))
                lines += ["    %s" % os.path.join(r.pkg, s) for s in k["srcs"]]
            lines.append(")")
            continue
        if r.kind in ("config_setting", "test_suite"):
            continue
        if r.kind in ("genrule", "sh_binary"):
            sys.exit("bazel_to_cmake: %s %s has no CMake form; keep it in a skipped package"
                     % (r.kind, r.label))
        src = lambda attr: [os.path.join(r.pkg, s) for s in k.get(attr, [])]
        args = [cmake_name(r.label)]
        if r.kind == "cc_library":
            # A testing/ folder's helpers (certificates for TLS tests and examples) build
            # static for what uses them; they are not installed or linked by consumers.
            installed = (not k.get("testonly") and not r.pkg.startswith(NOT_LIBRARY)
                         and "testing" not in r.pkg.split("/"))
            args += ["EXPORT", export_name(r)] if installed else []
            if installed and k.get("linkstatic"):
                refuse("%s: linkstatic on an installed library (CMake builds it shared too)"
                       % r.label)
            args += ["ALWAYSLINK"] if k.get("alwayslink") else []
            fn = "ws_cc_library"
        elif r.kind == "cc_binary":
            fn = "ws_cc_binary"
            args += ["INSTALL"] if r.pkg == "tools" and not k.get("testonly") else []
        elif r.kind == "cc_test":
            fn = "ws_cc_test"
        else:
            fn = "ws_sh_test"
        args += ["DIR", r.pkg, "NAME", r.name]
        if k.get("srcs"):
            args += ["SRCS"] + src("srcs")
        if k.get("hdrs") or k.get("textual_hdrs"):
            args += ["HDRS"] + src("hdrs") + src("textual_hdrs")
        if deps(r):
            args += ["DEPS"] + deps(r)
        copts = [c for c in k.get("copts", []) if not c.startswith("-std=")]  # CMake sets it
        if copts:
            args += ["COPTS"] + copts
        if k.get("linkopts"):
            args += ["LINKOPTS"] + k["linkopts"]
        if k.get("defines"):
            args += ["DEFINES"] + k["defines"]
        if k.get("data"):
            args += ["DATA"] + files(r, "data")
        if k.get("args"):
            args += ["ARGS"] + [a for arg in k["args"] for a in expand(r, arg)]
        if k.get("env"):
            args += ["ENV"] + ["%s=%s" % kv for kv in sorted(k["env"].items())]
        if k.get("size") and r.kind.endswith("test"):
            args += ["SIZE", k["size"]]
        # One keyword and its values a line.
        call, line = [], []
        for a in args[1:]:
            if a.isupper() and a.isidentifier() and line:
                call.append(" ".join(line))
                line = []
            line.append(a if not (" " in a or ";" in a or "$" in a) else '"%s"' % a)
        call.append(" ".join(line))
        lines.append("%s(%s\n    %s)" % (fn, args[0], "\n    ".join(call)))
    return "\n".join(lines) + "\n"


def main():
    global ROOT
    if "--root" in sys.argv:
        ROOT = os.path.abspath(sys.argv[sys.argv.index("--root") + 1])
    text = generate()
    path = os.path.join(ROOT, OUT)
    if "--check" in sys.argv:
        old = open(path).read() if os.path.exists(path) else ""
        if old != text:
            print("bazel_to_cmake: %s is stale; run tools/bazel_to_cmake.py" % OUT)
            return 1
        print("bazel_to_cmake: %s matches the BUILD files" % OUT)
        return 0
    with open(path, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
