package io.qlog.${qlog.engine};

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * The plugin zip unpacked the way a node's plugins folder holds it. A test class of each engine module, not of
 * io.qlog.testing: ITPluginZip runs with qlog-similarity off its classpath.
 */
final class PluginFolder {
  private PluginFolder() {}

  /** Unpacks {@code zip} into {@code plugin} (created); an entry that would land outside it is refused. */
  static void unpack(Path zip, Path plugin) throws IOException {
    Files.createDirectories(plugin);
    try (ZipInputStream in = new ZipInputStream(Files.newInputStream(zip))) {
      for (ZipEntry e; (e = in.getNextEntry()) != null; ) {
        Path target = plugin.resolve(e.getName()).normalize();
        if (!target.startsWith(plugin)) {
          throw new IOException("zip entry outside the plugin folder: " + e.getName());
        }
        if (e.isDirectory()) {
          Files.createDirectories(target);
        } else {
          Files.createDirectories(target.getParent());
          Files.copy(in, target);
        }
      }
    }
  }
}
