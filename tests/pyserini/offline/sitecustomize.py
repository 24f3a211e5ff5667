"""Test-only start-up hook that lets the real Pyserini 2.4.0 import and run on a machine without
network and without its deep-learning stack. Loaded only by the tests' subprocesses, which put this
folder first on PYTHONPATH; nothing in the package imports it.

1. ``pyserini.search.lucene`` imports ``pyserini.encode`` (for the impact searcher), which imports
   torch, transformers, scikit-learn, onnxruntime and faiss at module level. None of them is used by
   BM25 or q-log search, so they are replaced by empty stand-in modules: any attribute is a dummy
   class, calling one returns it (or the function it decorates). Code that really used them would
   fail loudly, not silently compute something.
2. Pyserini fetches its prebuilt-index catalogue (JSON files at raw.githubusercontent.com) when its
   modules are imported, topic sets from castorini/eval, and prebuilt indexes from their URLs. A
   urllib handler serves all of them from ``$QLOG_TEST_PYSERINI_FIXTURE``: ``castorini/<repo>/<path>``
   for ``https://raw.githubusercontent.com/castorini/<repo>/<commit>/<path>`` (a prebuilt-indexes
   catalogue file the fixture lacks is served empty), and ``downloads/<file name>`` for any other
   URL. A URL the fixture cannot serve is refused with URLError: no test reaches the network.
"""

import email.message
import importlib.abc
import importlib.machinery
import io
import os
import sys
import types
import urllib.error
import urllib.request
import urllib.response
from pathlib import Path

STUBBED = ("torch", "requests", "transformers", "sklearn", "onnxruntime", "faiss", "sentence_transformers", "openai",
           "tiktoken", "nmslib", "pyarrow.parquet")
GITHUB_PREFIX = "https://raw.githubusercontent.com/castorini/"


class _Dummy(type):
    """A class whose every attribute is another dummy class; calling it returns itself or the decorated function."""

    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Dummy(name, (), {})

    def __call__(cls, *args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return cls


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Dummy(name, (), {})


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if any(name == s or name.startswith(s + ".") for s in STUBBED):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _StubModule(spec.name)
        module.__path__ = []
        module.__version__ = "0.0.0+qlog-test-stub"
        return module

    def exec_module(self, module):
        pass


class _FixtureHandler(urllib.request.BaseHandler):
    handler_order = 100  # before the real HTTP(S) handlers

    def __init__(self, root: Path):
        self.root = root

    def _serve(self, req):
        url = req.full_url
        if url.startswith(GITHUB_PREFIX):
            repo, _commit, rel = url[len(GITHUB_PREFIX):].split("/", 2)
            path = self.root / "castorini" / repo / rel
            if path.is_file():
                body = path.read_bytes()
            elif repo == "prebuilt-indexes":  # the rest of the catalogue is empty
                body = b"{}" if rel.startswith("faiss/") else b"[]"
            else:
                raise urllib.error.URLError(f"network is disabled in these tests ({url})")
        else:
            path = self.root / "downloads" / url.rsplit("/", 1)[-1]
            if not path.is_file():
                raise urllib.error.URLError(f"network is disabled in these tests ({url})")
            body = path.read_bytes()
        headers = email.message.Message()
        headers["Content-Length"] = str(len(body))
        response = urllib.response.addinfourl(io.BytesIO(body), headers, url, 200)
        response.msg = "OK"
        return response

    https_open = _serve
    http_open = _serve


sys.meta_path.insert(0, _StubFinder())
_root = os.environ.get("QLOG_TEST_PYSERINI_FIXTURE")
if _root:
    urllib.request.install_opener(urllib.request.build_opener(_FixtureHandler(Path(_root))))
