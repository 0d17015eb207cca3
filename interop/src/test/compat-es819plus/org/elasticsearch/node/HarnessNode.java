package org.elasticsearch.node;

import java.util.Collection;
import java.util.Map;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.plugins.HarnessPluginsService;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.plugins.PluginsLoader;
import org.elasticsearch.plugins.PluginsService;

/**
 * The wirestream harness's node: only the plugin classes given, loaded from the classpath
 * (HarnessPluginsService), as the test framework's MockNode does (that framework is not
 * used: its MockNode starts ES's test bootstrap, which refuses to run as root, and its
 * randomizedtesting changes ES's Randomness). It sits in ES's package because Node's
 * constructor from a NodeConstruction and NodeServiceProvider are package-private.
 */
public final class HarnessNode extends Node {
  public HarnessNode(Settings settings, Collection<Class<? extends Plugin>> plugins) {
    super(NodeConstruction.prepareConstruction(
        InternalSettingsPreparer.prepareEnvironment(settings, Map.of(), null,
            () -> settings.get("node.name")),
        null, new NodeServiceProvider() {
          @Override
          PluginsService newPluginService(Environment env, PluginsLoader loader) {
            return new HarnessPluginsService(env, plugins);
          }
        }, true));
  }
}
