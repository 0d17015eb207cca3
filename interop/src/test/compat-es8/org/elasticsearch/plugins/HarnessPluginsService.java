package org.elasticsearch.plugins;

import java.util.ArrayList;
import java.util.List;
import org.elasticsearch.Version;
import org.elasticsearch.common.settings.Settings;

/**
 * The wirestream harness's plugins service (ES 8.7, whose test framework is not published):
 * no modules or plugins folder, only the plugin classes given, instantiated from the
 * classpath. It sits in ES's package because a loaded plugin's record is package-private.
 */
public final class HarnessPluginsService extends PluginsService {
  private final List<LoadedPlugin> loaded = new ArrayList<>();

  public HarnessPluginsService(Settings settings, List<Class<? extends Plugin>> classes) {
    super(settings, null, null, null);
    for (Class<? extends Plugin> c : classes) {
      var descriptor = new PluginDescriptor(c.getName(), "classpath plugin", "NA",
          Version.CURRENT, "17", c.getName(), null, List.of(), false, false, false, false);
      Plugin instance = loadPlugin(c, settings, null);
      loaded.add(new LoadedPlugin(descriptor, instance));
    }
    loaded.addAll(super.plugins());
  }

  @Override
  protected List<LoadedPlugin> plugins() {
    return loaded;
  }
}
