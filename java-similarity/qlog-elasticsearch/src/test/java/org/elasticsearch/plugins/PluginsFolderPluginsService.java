package org.elasticsearch.plugins;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.elasticsearch.Build;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;

/**
 * Test-only: a node's real {@link PluginsService} over a {@link PluginsLoader} that read a {@code plugins/} folder
 * (descriptor checks, jar-hell check, each plugin in its own class loader: what a started node runs), plus the
 * classpath plugins a test node needs for its transport, which a distribution would take from its
 * {@code modules/} folder. In Elasticsearch's package because a plugin's loaded form is package-private; the test
 * framework's {@code MockPluginsService} builds classpath plugins the same way, over an empty loader.
 */
public class PluginsFolderPluginsService extends PluginsService {
  private final List<LoadedPlugin> plugins;

  /**
   * @param settings the node's settings
   * @param environment the node's environment (its config folder is handed to each plugin)
   * @param loader the loader that read the plugins folder
   * @param classpathPlugins plugin classes on the test classpath (the transport), loaded after the folder's
   */
  public PluginsFolderPluginsService(Settings settings, Environment environment, PluginsLoader loader,
      Collection<Class<? extends Plugin>> classpathPlugins) {
    super(settings, environment.configDir(), loader);
    List<LoadedPlugin> fromClasspath = new ArrayList<>();
    for (Class<? extends Plugin> c : classpathPlugins) {
      Plugin instance = loadPlugin(c, settings, environment.configDir());
      PluginDescriptor descriptor = new PluginDescriptor(c.getName(), "classpath plugin", "NA",
          Build.current().version(), Integer.toString(Runtime.version().feature()), c.getName(), null, List.of(),
          false, false, false, false);
      fromClasspath.add(new LoadedPlugin(descriptor, instance, c.getClassLoader()));
    }
    loadExtensions(fromClasspath);
    List<LoadedPlugin> all = new ArrayList<>(super.plugins());
    all.addAll(fromClasspath);
    this.plugins = List.copyOf(all);
  }

  @Override
  protected List<LoadedPlugin> plugins() {
    // the super constructor may ask before this one has merged the lists
    return plugins == null ? super.plugins() : plugins;
  }
}
