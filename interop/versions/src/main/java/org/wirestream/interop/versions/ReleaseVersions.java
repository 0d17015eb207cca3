package org.wirestream.interop.versions;

import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * Prints one line for the Elasticsearch server jar on the classpath:
 *
 *   release RELEASE CURRENT_ID MINIMUM_COMPATIBLE_ID
 *
 * RELEASE is the jar's own release (Version.CURRENT), CURRENT_ID its TransportVersion.current()
 * (Version.CURRENT.id before 8.x had a TransportVersion) and MINIMUM_COMPATIBLE_ID the oldest
 * wire version it talks to. Everything is looked up by reflection, newest API first, so the
 * same class runs against 7.17, 8.x and 9.x; a value that no known API gives is an error, never
 * a guess. tools/interop.sh compares the line with wirestream's release table.
 */
public final class ReleaseVersions {
  private ReleaseVersions() {}

  public static void main(String[] args) throws Exception {
    String release = release();
    int current = currentId();
    int minimum = minimumCompatibleId();
    System.out.println("release " + release + " " + current + " " + minimum);
  }

  /** The release of the jar: Version.CURRENT's string, e.g. "9.1.0" (no qualifier). */
  static String release() throws Exception {
    Object v = Class.forName("org.elasticsearch.Version").getField("CURRENT").get(null);
    return v.toString();
  }

  static int currentId() throws Exception {
    Class<?> tv = transportVersionClass();
    if (tv == null) return versionId(versionCurrent()); // 7.x: the wire version is Version.id
    Object current;
    Method m = method(tv, "current");
    if (m != null) {
      current = m.invoke(null); // 8.8 and later
    } else {
      current = tv.getField("CURRENT").get(null); // 8.7 (the class's first release)
    }
    return transportId(current);
  }

  static int minimumCompatibleId() throws Exception {
    Class<?> tv = transportVersionClass();
    if (tv == null) {
      Object v = versionCurrent();
      return versionId(v.getClass().getMethod("minimumCompatibilityVersion").invoke(v));
    }
    Method m = method(tv, "minimumCompatible"); // 9.x: a static method
    if (m != null && m.getParameterCount() == 0) return transportId(m.invoke(null));
    Class<?> constants = classOrNull("org.elasticsearch.TransportVersions"); // 8.11 and later
    if (constants != null) {
      Field f = fieldOrNull(constants, "MINIMUM_COMPATIBLE");
      if (f != null) return transportId(f.get(null));
    }
    Field f = fieldOrNull(tv, "MINIMUM_COMPATIBLE"); // 8.7 to 8.10
    if (f != null) return transportId(f.get(null));
    Object current = tv.getMethod("current").invoke(null);
    m = method(current.getClass(), "calculateMinimumCompatVersion");
    if (m != null) return transportId(m.invoke(current));
    throw new IllegalStateException("no minimum compatible transport version in this jar");
  }

  static Class<?> transportVersionClass() {
    return classOrNull("org.elasticsearch.TransportVersion");
  }

  static Object versionCurrent() throws Exception {
    return Class.forName("org.elasticsearch.Version").getField("CURRENT").get(null);
  }

  static int versionId(Object version) throws Exception {
    return version.getClass().getField("id").getInt(version);
  }

  /** TransportVersion's id: a record accessor id() in 8.8+, a public field id in 8.7. */
  static int transportId(Object version) throws Exception {
    Method m = method(version.getClass(), "id");
    if (m != null) return (Integer) m.invoke(version);
    return version.getClass().getField("id").getInt(version);
  }

  static Method method(Class<?> c, String name) {
    for (Method m : c.getMethods()) {
      if (m.getName().equals(name) && m.getParameterCount() == 0) return m;
    }
    return null;
  }

  static Field fieldOrNull(Class<?> c, String name) {
    try {
      return c.getField(name);
    } catch (NoSuchFieldException e) {
      return null;
    }
  }

  static Class<?> classOrNull(String name) {
    try {
      return Class.forName(name);
    } catch (ClassNotFoundException e) {
      return null;
    }
  }
}
