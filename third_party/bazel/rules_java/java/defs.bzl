# Offline stand-in for @rules_java: only its JDK toolchain registration is needed.
java_import = native.java_import
java_runtime = native.java_runtime
java_toolchain = native.java_toolchain
java_binary = native.java_binary
java_library = native.java_library
