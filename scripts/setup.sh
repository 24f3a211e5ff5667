#!/usr/bin/env bash
# Set up qlog-pyserini from a fresh clone: a Python virtualenv in .venv with pyserini 2.4.0 (without its
# torch/transformers stack), this package in editable mode, and the Lucene similarity jar compiled with a
# JDK >= 21. Idempotent; nothing machine-specific is hard-coded.
#
# Python: the newest >= 3.12 found is used (pyserini 2.4.0 declares >= 3.12). Where there is none, a 3.11 is
# used instead: pyserini 2.4.0's code compiles and runs on 3.11 (our suite passes there), so only pyserini
# itself is installed with --ignore-requires-python; every other package is resolved for 3.11 as usual.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${QLOG_VENV:-.venv}

# python_ok PYTHON MINOR: is PYTHON a CPython 3.MINOR or newer?
python_ok() { "$1" -c "import sys; sys.exit(0 if sys.version_info >= (3, $2) else 1)" 2>/dev/null; }

# find_python MINOR: QLOG_PYTHON, then python3.x on PATH, then pyenv's versions (not on PATH), newest first
find_python() {
  local c root
  for c in "${QLOG_PYTHON:-}" python3.13 python3.12 python3 python; do
    [ -n "$c" ] && command -v "$c" >/dev/null 2>&1 && python_ok "$(command -v "$c")" "$1" && { command -v "$c"; return; }
  done
  root=$( (command -v pyenv >/dev/null && pyenv root) || echo "${PYENV_ROOT:-$HOME/.pyenv}")
  for c in $(ls -d "$root"/versions/3.* 2>/dev/null | sort -V -r); do
    python_ok "$c/bin/python" "$1" && { echo "$c/bin/python"; return; }
  done
  return 1
}

# An existing .venv is kept unless a better Python has appeared (3.11 -> 3.12+).
if [ ! -x "$VENV/bin/python" ] || ! python_ok "$VENV/bin/python" 11 \
    || { ! python_ok "$VENV/bin/python" 12 && find_python 12 >/dev/null; }; then
  PY=$(find_python 12 || find_python 11) || {
    echo "error: Python >= 3.11 is needed (3.12+ preferred: pyserini 2.4.0 declares it); install one or set QLOG_PYTHON" >&2
    exit 1; }
  python_ok "$PY" 12 || echo "note: no Python >= 3.12 found; using $("$PY" --version) with pyserini installed --ignore-requires-python" >&2
  echo "creating $VENV with $PY ($("$PY" --version))" >&2
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
fi
# PYTHONWARNINGS: setuptools' editable-install banner (a BuildBackendWarning) says nothing about this project.
PIP=(env PYTHONWARNINGS=ignore "$VENV/bin/python" -m pip --disable-pip-version-check -q)
echo "installing Python packages into $VENV" >&2
"${PIP[@]}" install --upgrade pip setuptools wheel
# lucene (the JVM verbs) and agent (locate and its MCP server); the pyterrier extra too, so tests/pyterrier runs
# wherever the suite does (it is light: no torch, no Terrier), and the integrations' four extras for
# tests/integrations (bm25s, rank_bm25, LlamaIndex, LangChain: no torch)
"${PIP[@]}" install -e '.[lucene,agent,test,pyterrier,bm25s,rank_bm25,llamaindex,langchain]'
# --no-deps: pyserini's own requirements pull torch and transformers, which this project does not use.
# Installed last, so no later install reports them missing (pip checks conflicts only when it resolves).
echo "installing pyserini 2.4.0 without its torch/transformers dependencies (not used here, skipped on purpose)" >&2
PYSERINI_FLAGS=(--no-deps)
python_ok "$VENV/bin/python" 12 || PYSERINI_FLAGS+=(--ignore-requires-python)  # 3.11: see the header
"${PIP[@]}" install "${PYSERINI_FLAGS[@]}" pyserini==2.4.0
"$VENV/bin/python" -m qlog_pyserini.build
