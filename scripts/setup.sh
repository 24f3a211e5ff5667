#!/usr/bin/env bash
# Set up qlog-pyserini from a fresh clone: a Python >= 3.12 virtualenv in .venv with pyserini 2.4.0
# (without its torch/transformers stack), this package in editable mode, and the Lucene similarity jar
# compiled with a JDK >= 21. Idempotent; nothing machine-specific is hard-coded.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${QLOG_VENV:-.venv}

python_ok() { "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' 2>/dev/null; }

find_python() {
  local c
  for c in "${QLOG_PYTHON:-}" python3.13 python3.12 python3 python; do
    [ -n "$c" ] && command -v "$c" >/dev/null 2>&1 && python_ok "$(command -v "$c")" && { command -v "$c"; return; }
  done
  # pyenv keeps versions that are not on PATH
  local root
  root=$( (command -v pyenv >/dev/null && pyenv root) || echo "${PYENV_ROOT:-$HOME/.pyenv}")
  for c in $(ls -d "$root"/versions/3.* 2>/dev/null | sort -V -r); do
    python_ok "$c/bin/python" && { echo "$c/bin/python"; return; }
  done
  return 1
}

if [ ! -x "$VENV/bin/python" ] || ! python_ok "$VENV/bin/python"; then
  PY=$(find_python) || { echo "error: Python >= 3.12 is needed (pyserini 2.4.0 requires it); install one or set QLOG_PYTHON" >&2; exit 1; }
  echo "creating $VENV with $PY ($("$PY" --version))" >&2
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
fi
PIP=("$VENV/bin/python" -m pip --disable-pip-version-check -q)
"${PIP[@]}" install --upgrade pip setuptools wheel
# --no-deps: pyserini's own requirements pull torch and transformers, which this project does not use.
"${PIP[@]}" install --no-deps pyserini==2.4.0
"${PIP[@]}" install -e '.[test]'
"$VENV/bin/python" -m qlog_pyserini.build
