package org.wirestream.interop;

import java.nio.file.Path;

/** What every check gets: the ES release under test, the seed, and the C++ programs. */
final class Context {
  final String esVersion;
  final long seed;
  /** `bazel-bin/interop/runner`: vectors and reduce on the C++ side (runner/runner_main.cc). */
  final Path runner;
  /** `bazel-bin/interop/peer`: the wirestream transport peer (peer/peer_main.cc). */
  final Path peer;
  /** A scratch folder of this run (vector files, logs). */
  final Path work;
  /** `bazel-bin/examples/es_coordinator`: wirestream's coordinator (the coordinator check). */
  final Path coordinator;

  Context(String esVersion, long seed, Path runner, Path peer, Path work, Path coordinator) {
    this.esVersion = esVersion;
    this.seed = seed;
    this.runner = runner;
    this.peer = peer;
    this.work = work;
    this.coordinator = coordinator;
  }

  /** A random source for one check, derived from the run's seed and the check's name. */
  java.util.Random random(String check) {
    return new java.util.Random(seed * 31 + check.hashCode());
  }
}
