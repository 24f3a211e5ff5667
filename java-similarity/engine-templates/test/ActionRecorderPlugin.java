package io.qlog.${qlog.engine};

import io.qlog.testing.ReadOnlyProxy;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;
import ${qlog.engine.core}.ActionListener;
import ${qlog.engine.core}.ActionResponse;
import org.${qlog.engine}.action.ActionRequest;
import org.${qlog.engine}.action.support.ActionFilter;
import org.${qlog.engine}.action.support.ActionFilterChain;
import org.${qlog.engine}.plugins.ActionPlugin;
import org.${qlog.engine}.plugins.Plugin;
import org.${qlog.engine}.tasks.Task;

/**
 * Records the name of every action a node runs for a request the read-only proxy forwarded (its X-Opaque-Id): the
 * actions a role must be granted, as ${qlog.engine.name}'s security checks them (by action name), measured rather
 * than assumed.
 */
public class ActionRecorderPlugin extends Plugin implements ActionPlugin {
  public static final Set<String> ACTIONS = new ConcurrentSkipListSet<>();

  @Override
  public List<ActionFilter> getActionFilters() {
    return List.of(new ActionFilter() {
      @Override
      public int order() {
        return Integer.MIN_VALUE;
      }

      @Override
      public <Request extends ActionRequest, Response extends ActionResponse> void apply(Task task, String action,
          Request request, ActionListener<Response> listener, ActionFilterChain<Request, Response> chain) {
        if (ReadOnlyProxy.OPAQUE_ID.equals(task.getHeader(ReadOnlyProxy.OPAQUE_ID_HEADER))) {
          ACTIONS.add(action);
        }
        chain.proceed(task, action, request, listener);
      }
    });
  }
}
