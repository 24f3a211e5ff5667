#!/usr/bin/env bash
# Build and test java-similarity/ with Maven: the similarities on Lucene 10.5 and 9.12, the Solr factory and
# the SolrCloud tests, the OpenSearch (3.9 and 2.19) and Elasticsearch (9.1 and 8.19) plugins, their zips and their
# cluster tests, and (when Pyserini's fatjar is installed in .venv) the Anserini-dependent modules: qlog-anserini and
# the benchmark programs over it, qlog-benchmark. As root, the OpenSearch and Elasticsearch test JVMs run as uid 65534
# in a user namespace (both refuse uid 0; qlog-opensearch/src/test/bin/java-not-root).
# Finds a JDK >= 21 at run time (QLOG_JAVA_HOME, JAVA_HOME, /usr/lib/jvm/*, javac on PATH; newest wins); every
# module runs on it, the OpenSearch 2 and Elasticsearch 8 tests included (no security manager: JDK 24+ has none).
# Extra arguments go to Maven, e.g. -Dtest=TestQLogIdf -Dsurefire.failIfNoSpecifiedTests=false.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

jdk_major() { # prints the feature version of the JDK at $1, or nothing
  [ -x "$1/bin/javac" ] || return 0
  "$1/bin/javac" -version 2>&1 | sed -n 's/^javac \([0-9][0-9]*\).*/\1/p' | head -1
}

find_jdk() {
  local best="" best_v=0 c v
  local candidates=("${QLOG_JAVA_HOME:-}" "${JAVA_HOME:-}")
  for c in /usr/lib/jvm/* /usr/local/lib/jvm/* /opt/java/*; do candidates+=("$c"); done
  if command -v javac >/dev/null 2>&1; then
    candidates+=("$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")")
  fi
  for c in "${candidates[@]}"; do
    [ -n "$c" ] || continue
    v=$(jdk_major "$c")
    if [ -n "$v" ] && [ "$v" -ge 21 ] && [ "$v" -gt "$best_v" ]; then best=$c; best_v=$v; fi
  done
  [ -n "$best" ] && echo "$best"
}

JDK=$(find_jdk) || { echo "error: Maven build needs a JDK >= 21 (Lucene 10); install one or set QLOG_JAVA_HOME" >&2; exit 2; }
command -v mvn >/dev/null 2>&1 || { echo "error: mvn not found; install Maven >= 3.8" >&2; exit 2; }
export JAVA_HOME=$JDK

args=()
FATJAR=$(ls "$ROOT"/.venv/lib/python3*/site-packages/pyserini/resources/jars/anserini-*-fatjar.jar 2>/dev/null | head -1 || true)
if [ -n "$FATJAR" ]; then
  args+=("-Danserini.jar=$FATJAR")
else
  echo "note: no Pyserini fatjar in .venv (run scripts/setup.sh): modules qlog-anserini and qlog-benchmark are skipped" >&2
fi
echo "java-verify: JDK $JDK (Java $(jdk_major "$JDK")), $(mvn -v 2>/dev/null | head -1 | sed 's/ (.*//')" >&2

# Maven itself (its bundled Guava) warns about sun.misc.Unsafe on JDK 24+; harmless, and noise in CI logs
if [ "$(jdk_major "$JDK")" -ge 24 ]; then export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"; fi
# stale reports from an earlier run would count in the summary below
rm -rf java-similarity/*/target/surefire-reports java-similarity/*/target/failsafe-reports

rc=0
(cd java-similarity && mvn -q -B verify "${args[@]}" "$@") || rc=$?

# -q hides Surefire's console summary: print it from the reports, one line per module and a total
python3 - "$ROOT/java-similarity" <<'PY' || true
import glob, os, sys, xml.etree.ElementTree as ET
total = [0, 0, 0, 0]
reports = glob.glob(os.path.join(sys.argv[1], "*", "target", "surefire-reports"))
reports += glob.glob(os.path.join(sys.argv[1], "*", "target", "failsafe-reports"))
for module in sorted(reports):
    counts = [0, 0, 0, 0]
    for f in glob.glob(os.path.join(module, "TEST-*.xml")):
        s = ET.parse(f).getroot()
        for i, k in enumerate(("tests", "failures", "errors", "skipped")):
            counts[i] += int(s.get(k, 0))
    total = [a + b for a, b in zip(total, counts)]
    name = os.path.basename(os.path.dirname(os.path.dirname(module)))
    if module.endswith("failsafe-reports"):
        name += ", integration"
    print(f"[{name}] Tests run: {counts[0]}, Failures: {counts[1]}, Errors: {counts[2]}, Skipped: {counts[3]}")
print(f"Tests run: {total[0]}, Failures: {total[1]}, Errors: {total[2]}, Skipped: {total[3]}")
PY
exit $rc
