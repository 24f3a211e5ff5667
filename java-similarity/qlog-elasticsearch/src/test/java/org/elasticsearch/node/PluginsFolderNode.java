package org.elasticsearch.node;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import org.elasticsearch.env.Environment;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.plugins.PluginsFolderPluginsService;
import org.elasticsearch.plugins.PluginsLoader;
import org.elasticsearch.plugins.PluginsService;

/**
 * Test-only: a real {@link Node} (not the test framework's {@code MockNode}, whose plugins can only be classes on the
 * classpath) whose plugins are read from {@code $path.home/plugins} the way Elasticsearch's bootstrap reads them
 * ({@code PluginsLoader.loadPluginsBundles} then {@code createPluginsLoader}, no native access granted), plus the
 * given classpath plugins. No modules folder: the server's own modules are not on Maven Central. In Elasticsearch's package because a node's construction hooks are package-private.
 */
public class PluginsFolderNode extends Node {

  /**
   * @param environment the node's environment; its plugins folder is read here
   * @param classpathPlugins plugin classes on the test classpath (the transport)
   */
  public PluginsFolderNode(Environment environment, Collection<Class<? extends Plugin>> classpathPlugins) {
    super(NodeConstruction.prepareConstruction(environment,
        // withServerExports = false: the server is on the classpath here, not the named module whose qualified
        // exports a distribution hands to modular plugins (ours is not modular: it gets none either way)
        PluginsLoader.createPluginsLoader(Set.of(), PluginsLoader.loadPluginsBundles(environment.pluginsDir()), Map.of(),
            false),
        new NodeServiceProvider() {
          @Override
          PluginsService newPluginService(Environment env, PluginsLoader loader) {
            return new PluginsFolderPluginsService(env.settings(), env, loader, classpathPlugins);
          }
        },
        true));
  }
}
