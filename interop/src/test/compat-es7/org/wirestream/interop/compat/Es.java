package org.wirestream.interop.compat;

import org.elasticsearch.Version;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.StreamOutput;

/**
 * What differs between ES release lines, behind one name (this file: 7.x, where the wire
 * version is the release Version). The other lines have their own Es in src/test/compat-*.
 */
public final class Es {
  private Es() {}

  /** The release on the classpath, e.g. "7.17.29". */
  public static String release() {
    return Version.CURRENT.toString();
  }

  /** That release's wire version id (Version.CURRENT.id), e.g. 7172999. */
  public static int transportVersionId() {
    return Version.CURRENT.id;
  }

  /** Writes at the given wire version id. */
  public static void setVersion(StreamOutput out, int id) {
    out.setVersion(Version.fromId(id));
  }

  /** Reads at the given wire version id. */
  public static void setVersion(StreamInput in, int id) {
    in.setVersion(Version.fromId(id));
  }
}
