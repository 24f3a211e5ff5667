"""Where a repository's work has lately been: how many recent commits touched each file, a ranking beside the issue's.

A file ranking from the issue's text knows nothing of where a project's changes happen, and in many repositories
most fixes land in a few long modules that shorter files sharing the issue's words outrank. Bug localization has
long used the history for that (version-history priors, Sisman and Kak, MSR 2012); an agent holds the history at
the base commit, and it needs no label. A file's activity is the number of the last :data:`ACTIVITY_COMMITS`
commits of the base commit's first-parent history (the base included) whose change against their first parent
touches it; a merge counts once, as the change it brought. The files of activity at least 1, most active first,
are one more ranking of :func:`~qlog_pyserini.localize.ranking.combine`'s fusion, with a whole vote.

:data:`ACTIVITY_COMMITS` is 200, not fewer: consecutive commits are often one pull request's steps, and a short
window would reward the fix's own earlier steps more than a report's fix, not yet in the history, can use; 200
commits span many pull requests. Form and constant were registered in results/selection-ledger.md before any
development set measured them.
"""

from __future__ import annotations

ACTIVITY_COMMITS = 200
