package org.wirestream.interop;

import java.util.Random;

/**
 * Random valid Unicode strings for the vectors: ASCII, two- and three-byte units, supplementary
 * characters (a surrogate pair, two 3-byte groups on the wire), mixed; lengths at the VInt
 * boundaries of the char count (127/128, 16383/16384) and around ES's 1024-char write buffer.
 */
final class Strings {
  private Strings() {}

  static final int[] BOUNDARIES = {
    0, 1, 2, 126, 127, 128, 129, 255, 256, 511, 512, 1023, 1024, 1025, 2047, 2048, 2049,
    4095, 4096, 8191, 8192, 16383, 16384, 16385
  };

  /** A length in chars: half the time a boundary (or one off it), else short. */
  static int randomLength(Random rnd) {
    if (rnd.nextInt(4) == 0) return BOUNDARIES[rnd.nextInt(BOUNDARIES.length)];
    return rnd.nextInt(rnd.nextBoolean() ? 12 : 200);
  }

  static String random(Random rnd) {
    int len = randomLength(rnd);
    // One class for the whole string, or mixed char by char.
    int mode = rnd.nextInt(6);
    StringBuilder b = new StringBuilder(len + 1);
    while (b.length() < len) {
      int m = mode == 5 ? rnd.nextInt(5) : mode;
      switch (m) {
        case 0 -> b.append((char) (0x20 + rnd.nextInt(0x5F)));  // printable ASCII
        case 1 -> b.append((char) rnd.nextInt(0x80));  // any ASCII, NUL and controls too
        case 2 -> b.append((char) (0x80 + rnd.nextInt(0x780)));  // two bytes
        case 3 -> {  // three bytes, not a surrogate
          char c;
          do {
            c = (char) (0x800 + rnd.nextInt(0x10000 - 0x800));
          } while (Character.isSurrogate(c));
          b.append(c);
        }
        default -> {
          if (b.length() + 2 > len) {
            b.append('x');  // keep the exact length
          } else {
            b.appendCodePoint(0x10000 + rnd.nextInt(0x100000));
          }
        }
      }
    }
    return b.toString();
  }
}
