# Offline stand-in for @rules_cc: Bazel 4.2.3 asks for it even for native rules.
cc_library = native.cc_library
cc_binary = native.cc_binary
cc_test = native.cc_test
cc_toolchain = native.cc_toolchain
cc_toolchain_suite = native.cc_toolchain_suite
