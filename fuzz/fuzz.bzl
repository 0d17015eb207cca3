"""fuzz_target: the gcc side of a libFuzzer target.

fuzz_target(name = "stream_input", deps = [...]) expects `<name>_fuzz.cc`
(defining LLVMFuzzerTestOneInput) and makes `<name>_replay`, a cc_test that
runs every file of corpus/<name>/ and regressions/<name>/ through it. The
libFuzzer builds themselves are made by tools/fuzz.sh with clang, outside
Bazel, so that `bazel test //...` needs gcc only.
"""

load("//:copts.bzl", "WS_COPTS")

def fuzz_target(name, deps):
    native.filegroup(
        name = name + "_inputs",
        visibility = ["//tests/hardening:__pkg__"],
        srcs = native.glob([
            "corpus/%s/**" % name,
            "regressions/%s/**" % name,
        ]),
    )
    native.cc_test(
        name = name + "_replay",
        copts = WS_COPTS,
        size = "small",
        srcs = [name + "_fuzz.cc", "replay_main.cc"],
        args = ["$(locations :%s_inputs)" % name],
        data = [":%s_inputs" % name],
        deps = deps,
    )
