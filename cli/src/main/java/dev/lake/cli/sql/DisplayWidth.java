package dev.lake.cli.sql;

import org.jline.utils.WCWidth;

/** Columns a string takes on a terminal: East Asian wide characters two, combining marks none. */
final class DisplayWidth {

  private DisplayWidth() {}

  static int of(String text) {
    int width = 0;
    for (int i = 0; i < text.length(); ) {
      int cp = text.codePointAt(i);
      width += Math.max(0, WCWidth.wcwidth(cp));
      i += Character.charCount(cp);
    }
    return width;
  }
}
