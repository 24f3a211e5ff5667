#!/usr/bin/env bash
# Quick start: set everything up, then run the embedded demo benchmark (real code from this
# machine's Python standard library and JDK), BM25 vs q-log BM25, NDCG@10 from trec_eval.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m qlog_pyserini.demo "$@"
