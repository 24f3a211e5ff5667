package io.qlog.elasticsearch;

import io.qlog.testing.ReadOnlyProxy;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;
import org.elasticsearch.action.ActionListener;
import org.elasticsearch.action.ActionRequest;
import org.elasticsearch.action.ActionResponse;
import org.elasticsearch.action.support.ActionFilter;
import org.elasticsearch.action.support.ActionFilterChain;
import org.elasticsearch.plugins.ActionPlugin;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.tasks.Task;

/**
 * Records the name of every action a node runs for a request the read-only proxy forwarded (its X-Opaque-Id): the
 * actions a role must be granted, as Elasticsearch's security checks them (by action name), measured rather than
 * assumed.
 */
public class ActionRecorderPlugin extends Plugin implements ActionPlugin {
  public static final Set<String> ACTIONS = new ConcurrentSkipListSet<>();

  @Override
  public Collection<ActionFilter> getActionFilters() {
    return List.of(new ActionFilter() {
      @Override
      public int order() {
        return Integer.MIN_VALUE;
      }

      @Override
      public <Request extends ActionRequest, Response extends ActionResponse> void apply(Task task, String action,
          Request request, ActionListener<Response> listener, ActionFilterChain<Request, Response> chain) {
        if (ReadOnlyProxy.OPAQUE_ID.equals(task.getHeader(Task.X_OPAQUE_ID_HTTP_HEADER))) {
          ACTIONS.add(action);
        }
        chain.proceed(task, action, request, listener);
      }
    });
  }
}
