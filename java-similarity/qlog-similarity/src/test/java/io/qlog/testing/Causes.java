package io.qlog.testing;

/** What an engine's wrapped exception says, for assertions on a plugin's own words. */
public final class Causes {
  private Causes() {}

  /** Every message in the cause chain, one a line, so an assertion sees the plugin's words however the engine wraps them. */
  public static String messages(Throwable t) {
    StringBuilder all = new StringBuilder();
    for (; t != null; t = t.getCause()) {
      all.append(t.getMessage()).append('\n');
    }
    return all.toString();
  }
}
