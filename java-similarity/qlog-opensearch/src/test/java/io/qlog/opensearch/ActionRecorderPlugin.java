package io.qlog.opensearch;

import io.qlog.testing.ReadOnlyProxy;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;
import org.opensearch.action.ActionRequest;
import org.opensearch.action.support.ActionFilter;
import org.opensearch.action.support.ActionFilterChain;
import org.opensearch.core.action.ActionListener;
import org.opensearch.core.action.ActionResponse;
import org.opensearch.plugins.ActionPlugin;
import org.opensearch.plugins.Plugin;
import org.opensearch.tasks.Task;

/**
 * Records the name of every action a node runs for a request the read-only proxy forwarded (its X-Opaque-Id): the
 * actions a role must be granted, as the OpenSearch security plugin checks them (by action name), measured rather
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
        if (ReadOnlyProxy.OPAQUE_ID.equals(task.getHeader(Task.X_OPAQUE_ID))) {
          ACTIONS.add(action);
        }
        chain.proceed(task, action, request, listener);
      }
    });
  }
}
