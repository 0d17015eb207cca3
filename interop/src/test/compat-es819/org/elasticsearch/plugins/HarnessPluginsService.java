package org.elasticsearch.plugins;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.elasticsearch.Build;
import org.elasticsearch.env.Environment;

/**
 * The wirestream harness's plugins service (ES 8.19): no modules or plugins folder, only the
 * plugin classes given, instantiated from the classpath, as the test framework's
 * MockPluginsService does (the framework itself is not on the harness's classpath: its
 * randomizedtesting makes ES's Randomness ask for a test runner's context). It sits in ES's
 * package because PluginsLoader's constructor and a loaded plugin's record are package-private.
 */
public final class HarnessPluginsService extends PluginsService {
  private final List<LoadedPlugin> loaded = new ArrayList<>();

  public HarnessPluginsService(Environment env, Collection<Class<? extends Plugin>> classes) {
    super(env.settings(), env.configDir(), new PluginsLoader(Set.of(), Set.of(), Map.of()));
    for (Class<? extends Plugin> c : classes) {
      var descriptor = new PluginDescriptor(c.getName(), "classpath plugin", "NA",
          Build.current().version(), Integer.toString(Runtime.version().feature()), c.getName(),
          null, List.of(), false, false, false, false);
      Plugin instance = loadPlugin(c, env.settings(), env.configDir());
      loaded.add(new LoadedPlugin(descriptor, instance, c.getClassLoader()));
    }
    loadExtensions(loaded);
  }

  @Override
  protected List<LoadedPlugin> plugins() {
    return loaded;
  }
}
