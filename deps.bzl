"""wirestream_dependencies(): the repositories wirestream's libraries need, for this
workspace and for any other that depends on wirestream:

    local_repository(name = "wirestream", path = "/path/to/wirestream")
    load("@wirestream//:deps.bzl", "wirestream_dependencies")
    wirestream_dependencies()

Each library comes from Debian's packages over /usr (tools/setup.sh installs them), with
its BUILD file from wirestream's third_party/system/. Bazel 4.2.3 also wants rules_cc,
rules_java and remote_coverage_tools, which it would download: local stand-ins answer.
A repository the caller already defined is left alone.
"""

def _stand_in_impl(rctx):
    # The stand-in's files, linked from wirestream's third_party/bazel/<name>/.
    root = rctx.path(Label("@wirestream//third_party/bazel/%s:WORKSPACE" % rctx.attr.stand_in)).dirname
    for f in rctx.attr.files:
        src = root
        for part in f.split("/"):
            src = src.get_child(part)
        rctx.symlink(src, f)

_stand_in = repository_rule(
    implementation = _stand_in_impl,
    attrs = {"stand_in": attr.string(), "files": attr.string_list()},
    local = True,
)

_STAND_INS = {
    "rules_cc": ["WORKSPACE", "BUILD", "cc/BUILD", "cc/defs.bzl"],
    "rules_java": ["WORKSPACE", "BUILD", "java/BUILD", "java/defs.bzl"],
    "remote_coverage_tools": ["WORKSPACE", "BUILD"],
}

# Repository name -> BUILD file under third_party/system/. The libraries need the first
# group; the CLI, tests and benchmarks the rest (wirestream_dependencies(dev = True)).
_SYSTEM = ["boost", "nlohmann_json", "lz4", "zlib", "openssl", "snappy", "hwy"]
_SYSTEM_DEV = [
    "cli11",
    "gtest",
    "benchmark",
    "protobuf",
    "zstd",
    "flatbuffers",
    "capnp",
    "cereal",
    "msgpack",
]

def wirestream_dependencies(dev = False):
    existing = native.existing_rules()
    for name in _SYSTEM + (_SYSTEM_DEV if dev else []):
        if name not in existing:
            native.new_local_repository(
                name = name,
                build_file = "@wirestream//third_party/system:%s.BUILD" % name,
                path = "/usr",
            )
    for name, files in _STAND_INS.items():
        if name not in existing:
            _stand_in(name = name, stand_in = name, files = files)
