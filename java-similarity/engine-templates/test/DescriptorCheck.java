package io.qlog.${qlog.engine};

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.nio.file.Paths;
import org.${qlog.engine}.plugins.Plugin;

/** What the plugin's descriptor must say whichever engine's reader reads it. */
final class DescriptorCheck {
  /** target/plugin-metadata: the descriptor after Maven filled in the versions, as the zip carries it. */
  static final Path METADATA = Paths.get(System.getProperty("basedir", "."), "target", "plugin-metadata");

  private DescriptorCheck() {}

  /** The descriptor's plugin name and class, as ${qlog.engine.name}'s reader returned them: this plugin's. */
  static void assertNamesThePlugin(String name, String classname) throws ClassNotFoundException {
    assertEquals("qlog-similarity", name);
    assertEquals(QLogSimilarityPlugin.class.getName(), classname);
    assertTrue(Plugin.class.isAssignableFrom(Class.forName(classname)));
  }
}
