"""Extraction of documented functions per language, skipping rules, and the benchmark folder."""

from __future__ import annotations

import json
import os
import textwrap
import zipfile
from collections import Counter
from pathlib import Path

import pytest

from qlog_pyserini.corpus import Function, build_benchmark, extract_functions, extract_source
from qlog_pyserini.corpus.doc_comments import leading_name_removed
from qlog_pyserini.corpus.extract import default_label
from qlog_pyserini.errors import QLogError


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def by_name(source: Path, language: str | None = None, label: str = "src") -> dict[str, Function]:
    fns = list(extract_functions(source, language, label))
    out = {f.name: f for f in fns}
    assert len(out) == len(fns), "qualified names repeat; use ids"
    return out


def extract(language: str, text: str) -> dict[str, tuple[str, str]]:
    """name -> (query, code) for one inline snippet; the first of overloads."""
    data = textwrap.dedent(text).lstrip("\n").encode()
    out: dict[str, tuple[str, str]] = {}
    for name, query, code, _ in extract_source(data, language):
        out.setdefault(name, (query, code))
    return out


# ------------------------------------------------------------------ Go

GO = """
package shop

import "fmt"

// Serve accepts incoming connections on the listener.
// It blocks until the server is closed.
//
// Serve always returns a non-nil error.
//go:noinline
func (s *Server[T]) Serve(l Listener) error {
	handle := func() { fmt.Println("x") } // a literal: no name, not a function of its own
	handle()
	return nil
}

// Add adds two integers and returns the sum.
func Add(a, b int) int { return a + b }

func undocumented() {}

// Detached comments are not documentation for anything.

func detached() {}

// Tiny doc.
func tiny() {}

// Sqrt is implemented in assembly for speed.
func Sqrt(x float64) float64

var x = 1 // trailing remark on an earlier line
func trailing() {}
"""


def test_go_doc_comment_first_paragraph_and_removed_from_code():
    fns = extract("go", GO)
    query, code = fns["Server.Serve"]
    assert query == "Serve accepts incoming connections on the listener. It blocks until the server is closed."
    assert code.startswith("func (s *Server[T]) Serve(l Listener) error {")
    assert "accepts incoming" not in code and "go:noinline" not in code and "non-nil" not in code
    assert fns["Add"] == ("Add adds two integers and returns the sum.", "func Add(a, b int) int { return a + b }")


def test_go_skips_undocumented_detached_short_bodiless_and_literals():
    fns = extract("go", GO)
    assert set(fns) == {"Server.Serve", "Add"}  # not: undocumented, detached, tiny, Sqrt, trailing, handle


# ------------------------------------------------------------------ Java

JAVA = """
package shop;

/** The cart. */
public class Cart {
    /**
     * Adds an item to the {@link Cart}, merging duplicates.
     * Keeps the order of first insertion.
     * <p>
     * Not thread safe.
     *
     * @param item the item
     */
    @Override
    public void add(Item item) {
        Runnable r = new Runnable() {
            /** Runs the merge step in the background. */
            public void run() { merge(); }
        };
    }

    /** Adds several items in one call. */
    public void add(Item... items) { for (Item i : items) add(i); }

    /** Creates an empty shopping cart. */
    public Cart() {}

    // Not javadoc: a line comment.
    public void clear() { items.clear(); }

    /** Too short. */
    public int size() { return 0; }

    static class Line {
        /** Returns the line total price. */
        long total() { return qty * price; }
    }

    /** {@return the {@linkplain Currency currency} of this cart} */
    public Currency currency() { return currency; }

    interface Visitor {
        /** Visits one item of the cart. */
        void visit(Item item);
    }
}
"""


def test_java_javadoc_tags_links_and_paragraphs():
    fns = extract("java", JAVA)
    query, code = fns["Cart.add"]
    assert query == "Adds an item to the Cart, merging duplicates. Keeps the order of first insertion."
    assert code.startswith("@Override\npublic void add(Item item) {")  # annotation kept, dedented
    assert "@param" not in code and "merging" not in code


def test_java_methods_constructors_nested_and_overloads():
    fns = extract("java", JAVA)
    assert set(fns) == {"Cart.add", "Cart.add.run", "Cart.Cart", "Cart.Line.total", "Cart.currency"}
    assert fns["Cart.currency"][0] == "Returns the currency of this cart"
    assert fns["Cart.Cart"] == ("Creates an empty shopping cart.", "public Cart() {}")
    # the anonymous class's method stays in its parent's code, without its doc comment
    assert "public void run() { merge(); }" in fns["Cart.add"][1]
    assert "background" not in fns["Cart.add"][1]
    assert fns["Cart.add.run"] == ("Runs the merge step in the background.", "public void run() { merge(); }")


def test_java_overloads_get_numbered_ids(tmp_path):
    write(tmp_path, "shop/Cart.java", JAVA)
    ids = [f.id for f in extract_functions(tmp_path, "java", "jdk")]
    assert ids == ["jdk/shop/Cart.java:Cart.add", "jdk/shop/Cart.java:Cart.add.run",
                   "jdk/shop/Cart.java:Cart.add#2", "jdk/shop/Cart.java:Cart.Cart",
                   "jdk/shop/Cart.java:Cart.Line.total", "jdk/shop/Cart.java:Cart.currency"]


# ------------------------------------------------------------------ Ruby

RUBY = """
module Shop
  # Greets the customer by name.
  # Uses the shop's locale.
  #
  # @param name [String]
  def self.greet(name)
    "hi #{name}"
  end

  class Cart
    # Returns the number of items.
    def size = @items.size

    # Adds an item to the cart.
    # @param item [Item] the item
    def add(item)
      @items << item
    end

    def undocumented; end

    class << self
      # Builds an empty cart instance.
      def build; new; end
    end
  end
end
"""


def test_ruby_comments_modules_classes_and_one_liners():
    fns = extract("ruby", RUBY)
    assert set(fns) == {"Shop.greet", "Shop.Cart.size", "Shop.Cart.add", "Shop.Cart.build"}
    assert fns["Shop.greet"] == ("Greets the customer by name. Uses the shop's locale.",
                                 'def self.greet(name)\n  "hi #{name}"\nend')
    assert fns["Shop.Cart.size"] == ("Returns the number of items.", "def size = @items.size")
    assert fns["Shop.Cart.add"][0] == "Adds an item to the cart."  # the @param tag ends it
    assert "#" not in fns["Shop.Cart.add"][1]


# ------------------------------------------------------------------ PHP

PHP = """
<?php
namespace Shop;

/**
 * Formats a price with its currency symbol.
 *
 * @param int $cents
 * @return string
 */
function format_price($cents) { return sprintf("%.2f", $cents / 100); }

# A hash comment is not PHPDoc.
function hashed() { return 1; }

class Cart {
    /** Adds an item to the cart. */
    #[Pure]
    public function add($item) {
        $f = function () { return 1; };
        $this->items[] = $item;
    }

    /** Declared only, never implemented here. */
    abstract protected function total();
}

trait Countable {
    /** Counts the items in here. */
    public function count() { return count($this->items); }
}
"""


def test_php_docblocks_functions_methods_and_traits():
    fns = extract("php", PHP)
    assert set(fns) == {"format_price", "Cart.add", "Countable.count"}
    assert fns["format_price"] == ("Formats a price with its currency symbol.",
                                   'function format_price($cents) { return sprintf("%.2f", $cents / 100); }')
    query, code = fns["Cart.add"]
    assert query == "Adds an item to the cart."
    assert code.startswith("#[Pure]\npublic function add($item) {") and "/**" not in code


# ------------------------------------------------------------------ JavaScript

JS = """
/**
 * Adds two numbers, see {@link Math}.
 *
 * More words that are not the query.
 * @param {number} a
 */
export function add(a, b) {
  /** Doubles a number for the caller. */
  function twice(x) { return 2 * x; }
  return twice(a) + b;
}

/** Multiplies two numbers together. */
const mul = (a, b) => a * b;

/** Returns the name of this widget. */
Widget.prototype.name = function () { return this._name; };

class Cart {
  /** Adds an item to the cart. */
  add(item) { this.items.push(item); }
  /** Handles a click event on it. */
  onClick = () => {};
}

const api = {
  /** Fetches one record by id. */
  get: function (id) { return db[id]; },
};

function undocumented() {}

// A line comment is not JSDoc at all.
function lineComment() {}
"""


def test_javascript_shapes_and_nested_functions():
    fns = extract("javascript", JS)
    assert set(fns) == {"add", "add.twice", "mul", "Widget.prototype.name", "Cart.add", "Cart.onClick", "api.get"}
    query, code = fns["add"]
    assert query == "Adds two numbers, see Math."
    assert code.startswith("export function add(a, b) {")
    # nested function: its code stays in the parent, its doc comment does not
    assert "function twice(x) { return 2 * x; }" in code and "Doubles" not in code
    assert fns["add.twice"] == ("Doubles a number for the caller.", "function twice(x) { return 2 * x; }")
    assert fns["mul"] == ("Multiplies two numbers together.", "const mul = (a, b) => a * b;")
    assert fns["api.get"] == ("Fetches one record by id.", "get: function (id) { return db[id]; }")


# ------------------------------------------------------------------ Python

PY = '''
class Cart:
    """A cart."""

    @property
    def size(self):
        """Return the number of items.

        Counts duplicates twice.
        """

        def count(items):
            """Count the items in a list."""
            return len(items)
        return count(self.items)

    def add(self, item): "Add one item to the cart."; self.items.append(item)

    def stub(self):
        """Subclasses implement this method."""

    def noop(self):
        """Does nothing at all here."""
        pass

    def undocumented(self):
        return 1

    def fstring(self):
        f"""Not a docstring at all {self}."""
        return 2
'''


def test_python_docstring_removed_and_nested_functions():
    fns = extract("python", PY)
    assert set(fns) == {"Cart.size", "Cart.size.count", "Cart.add", "Cart.noop"}
    query, code = fns["Cart.size"]
    assert query == "Return the number of items."
    assert code == ("@property\ndef size(self):\n"
                    "    def count(items):\n        return len(items)\n    return count(self.items)")
    assert fns["Cart.size.count"] == ("Count the items in a list.", "def count(items):\n    return len(items)")
    assert fns["Cart.add"] == ("Add one item to the cart.", "def add(self, item): self.items.append(item)")
    assert fns["Cart.noop"] == ("Does nothing at all here.", "def noop(self):\n    pass")


def test_python_stdlib_json_package():
    json_dir = os.path.dirname(json.__file__)
    fns = {f.id: f for f in extract_functions(json_dir, label="json")}
    dumps = fns["json/__init__.py:dumps"]
    assert dumps.query.startswith("Serialize ``obj`` to a JSON formatted ``str``")
    assert dumps.code.startswith("def dumps(obj, *,") and "Serialize" not in dumps.code
    assert "json/encoder.py:JSONEncoder.encode" in fns
    assert all(f.language == "python" for f in fns.values())


# ------------------------------------------------------------------ files, ids, zips

def test_skipped_files(tmp_path):
    doc = '"""Compute the answer to everything."""'
    body = f"def f():\n    {doc}\n    return 42\n"
    write(tmp_path, "pkg/real.py", body)
    for rel in ["pkg/test_real.py", "pkg/real_test.py", "tests/helper.py", "pkg/testdata/x.py",
                "vendor/lib.py", "node_modules/m/index.py", "third_party/t.py", ".git/hooks/h.py"]:
        write(tmp_path, rel, body)
    write(tmp_path, "pkg/gen.py", "# Code generated by protoc. DO NOT EDIT.\n" + body)
    write(tmp_path, "pkg/gen2.py", "# @generated by tool\n" + body)
    write(tmp_path, "web/app.min.js", "/** Compute the answer to everything. */\nfunction f() { return 42; }\n")
    write(tmp_path, "web/app.test.js", "/** Compute the answer to everything. */\nfunction f() { return 42; }\n")
    write(tmp_path, "go/x_test.go", "package x\n\n// F computes the answer.\nfunc F() int { return 42 }\n")
    write(tmp_path, "j/CartTest.java", "class CartTest { /** Tests the cart well. */ void t() {} }\n")
    write(tmp_path, "r/cart_spec.rb", "# Describes the cart well.\ndef it; end\n")
    stats: Counter = Counter()
    fns = list(extract_functions(tmp_path, label="t", stats=stats))
    assert [f.id for f in fns] == ["t/pkg/real.py:f"]
    assert stats["files_skipped_generated"] == 2 and stats["files_skipped_minified"] == 1
    assert stats["files_parsed"] == 1


def test_zip_input_and_language_filter(tmp_path):
    zpath = tmp_path / "src.zip"
    with zipfile.ZipFile(zpath, "w") as z:
        z.writestr("java.base/java/util/Cart.java", JAVA)
        z.writestr("py/cart.py", textwrap.dedent(PY))
        z.writestr("java.base/java/util/", "")  # a folder entry
    java = list(extract_functions(zpath, "java"))
    assert {f.id for f in java} >= {"src/java.base/java/util/Cart.java:Cart.Cart"}
    assert all(f.language == "java" for f in java)
    both = list(extract_functions(zpath, label="z"))
    assert Counter(f.language for f in both) == Counter({"java": 6, "python": 4})
    assert [f.path for f in both] == sorted(f.path for f in both)


@pytest.mark.parametrize("suffix", [".jar", ".whl", ".tar.gz", ".tgz", ".tar"])
def test_archives_give_the_functions_of_the_folder(tmp_path, suffix):
    """A Maven -sources.jar, a wheel and a tar sdist are read as the folder they unpack to."""
    import tarfile

    tree = tmp_path / "tree"
    write(tree, "pkg/cart.py", textwrap.dedent(PY))
    write(tree, "pkg/Cart.java", JAVA)
    write(tree, "pkg/README.txt", "not code")
    archive = tmp_path / f"shop-1.0-sources{suffix}"
    files = sorted(p for p in tree.rglob("*") if p.is_file())
    if suffix in (".jar", ".whl"):
        with zipfile.ZipFile(archive, "w") as z:
            for f in files:
                z.write(f, f.relative_to(tree).as_posix())
    else:
        with tarfile.open(archive, "w:gz" if suffix != ".tar" else "w") as t:
            for f in reversed(files):  # an archive order unlike the sorted one the reader visits
                t.add(f, f.relative_to(tree).as_posix())
    expected = [(f.id, f.code, f.query) for f in extract_functions(tree, label="shop")]
    assert len(expected) == 10
    assert [(f.id, f.code, f.query) for f in extract_functions(archive, label="shop")] == expected
    assert default_label(archive) == "shop-1.0-sources"


def test_unknown_source_file_names_the_archive_types(tmp_path):
    (tmp_path / "src.rar").write_bytes(b"Rar!")
    with pytest.raises(QLogError, match=r"\.zip, \.jar, \.whl, \.tar\.gz, \.tgz"):
        list(extract_functions(tmp_path / "src.rar"))
    (tmp_path / "bad.tgz").write_bytes(b"not a tar")
    with pytest.raises(QLogError, match="not a readable tar archive"):
        list(extract_functions(tmp_path / "bad.tgz"))


def test_whitespace_in_path_is_escaped_in_ids(tmp_path):
    write(tmp_path, "my pkg/a.py", 'def f():\n    """Compute the answer to everything."""\n    return 1\n')
    (fn,) = extract_functions(tmp_path, label="x")
    assert fn.id == "x/my%20pkg/a.py:f" and fn.path == "my pkg/a.py"


def test_bad_sources(tmp_path):
    with pytest.raises(QLogError, match="not found"):
        list(extract_functions(tmp_path / "missing"))
    (tmp_path / "bad.zip").write_bytes(b"not a zip")
    with pytest.raises(QLogError, match="zip"):
        list(extract_functions(tmp_path / "bad.zip"))
    with pytest.raises(QLogError, match="unknown language"):
        list(extract_functions(tmp_path, "cobol"))
    with pytest.raises(QLogError, match="whitespace"):
        list(extract_functions(tmp_path, label="my label"))


# ------------------------------------------------------------------ benchmark folder

def make_tree(root: Path) -> Path:
    write(root, "shop/cart.go", GO)
    write(root, "shop/Cart.java", JAVA)
    write(root, "shop/cart.rb", RUBY)
    write(root, "shop/cart.php", PHP)
    write(root, "shop/cart.js", JS)
    write(root, "shop/cart.py", PY)
    write(root, "shop/copy.py", PY)  # same code under other ids: duplicates
    return root


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_build_benchmark_layout_duplicates_and_qrels(tmp_path):
    src = make_tree(tmp_path / "src")
    out = tmp_path / "bench"
    manifest = build_benchmark([(src, "v1")], out, n_queries=5, seed=7)
    corpus = read_jsonl(out / "corpus.jsonl")
    ids = [d["_id"] for d in corpus]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert all(set(d) == {"_id", "title", "text"} and d["title"] == "" for d in corpus)
    # copy.py duplicates cart.py: the smaller id (cart.py) is kept
    assert "v1/shop/cart.py:Cart.add" in ids and not any(i.startswith("v1/shop/copy.py") for i in ids)
    assert manifest["counts"]["duplicates_dropped"] == 4
    assert len(corpus) == 2 + 6 + 4 + 3 + 7 + 4
    queries = read_jsonl(out / "queries.jsonl")
    assert len(queries) == 5
    lines = (out / "qrels" / "test.tsv").read_text().splitlines()
    assert lines[0] == "query-id\tcorpus-id\tscore"
    by_id = {d["_id"]: d for d in corpus}
    for q, line in zip(queries, lines[1:]):
        qid, docid, score = line.split("\t")
        assert qid == q["_id"] == "q:" + docid and score == "1" and docid in by_id
        assert q["text"] not in by_id[docid]["text"]
    saved = json.loads((out / "manifest.json").read_text())
    assert saved == json.loads(json.dumps(manifest))
    assert saved["versions"]["tree-sitter"].startswith("0.") and saved["seed"] == 7
    assert saved["counts"]["documents"] == len(corpus) and saved["counts"]["queries"] == 5


def test_leading_name_removed_only_when_the_query_starts_with_the_name():
    assert leading_name_removed("Serve accepts incoming connections.", "Server.Serve") == "accepts incoming connections."
    assert leading_name_removed("`Server.Serve` accepts connections", "Server.Serve") == "accepts connections"
    assert leading_name_removed("parse_args(argv) reads the options", "Parser.parse_args") == "reads the options"
    assert leading_name_removed("Add, then return the sum", "add") == "then return the sum"
    assert leading_name_removed("Adds two integers", "Add") is None  # a word that merely begins like the name
    assert leading_name_removed("Return the number of items", "Cart.size") is None
    assert leading_name_removed("Serve", "Serve") is None  # nothing would be left


def test_build_writes_the_query_variant_without_the_leading_name(tmp_path):
    src = make_tree(tmp_path / "src")
    out = tmp_path / "bench"
    manifest = build_benchmark([(src, "v1")], out, seed=7)
    written = {q["_id"]: q["text"] for q in read_jsonl(out / "queries.jsonl")}
    unnamed = {q["_id"]: q["text"] for q in read_jsonl(out / "queries-without-name.jsonl")}
    assert list(unnamed) == list(written)  # same queries, same order, so the same qrels judge both
    changed = {qid for qid in written if unnamed[qid] != written[qid]}
    # the Go doc comments start with the function's name ("Serve accepts ...", "Add adds ...")
    assert {"q:v1/shop/cart.go:Server.Serve", "q:v1/shop/cart.go:Add"} <= changed
    assert unnamed["q:v1/shop/cart.go:Add"] == "adds two integers and returns the sum."
    for qid in changed:
        assert written[qid].split(None, 1)[1] == unnamed[qid]
    assert manifest["counts"]["queries_starting_with_name"] == len(changed)


def test_build_is_deterministic_and_independent_of_workers(tmp_path):
    src = make_tree(tmp_path / "src")
    for i in range(8):  # enough files for the process pool to be used
        write(src, f"more/m{i}.py", f'def f{i}():\n    """Compute answer number {i} here."""\n    return {i}\n')
    outs = [tmp_path / "a", tmp_path / "b", tmp_path / "c"]
    build_benchmark([(src, "v1")], outs[0], query_fraction=0.5, seed=3)
    build_benchmark([(src, "v1")], outs[1], query_fraction=0.5, seed=3)
    build_benchmark([(src, "v1")], outs[2], query_fraction=0.5, seed=3, workers=2)
    names = ["corpus.jsonl", "queries.jsonl", "queries-without-name.jsonl", "qrels/test.tsv", "manifest.json"]
    for name in names:
        first = (outs[0] / name).read_bytes()
        assert first and all((o / name).read_bytes() == first for o in outs[1:]), name
    other = tmp_path / "d"
    build_benchmark([(src, "v1")], other, query_fraction=0.5, seed=4)
    assert (other / "queries.jsonl").read_bytes() != (outs[0] / "queries.jsonl").read_bytes()


def test_build_max_docs_languages_and_zip_source(tmp_path):
    src = make_tree(tmp_path / "src")
    zpath = tmp_path / "jdk.zip"
    with zipfile.ZipFile(zpath, "w") as z:
        z.writestr("java.base/Cart.java", JAVA)
    m = build_benchmark([(src, "v1"), (zpath, None)], tmp_path / "out", languages=["java"], max_docs=3)
    ids = [d["_id"] for d in read_jsonl(tmp_path / "out" / "corpus.jsonl")]
    assert len(ids) == 3 and m["counts"]["documents_per_language"] == {"java": 3}
    assert m["counts"]["functions"] == 12 and m["counts"]["duplicates_dropped"] == 6  # the zip repeats the tree
    assert all(i.startswith("jdk/java.base/Cart.java:") for i in ids)  # "jdk/..." < "v1/...": zip copies kept
    assert [s["kind"] for s in m["sources"]] == ["folder", "zip"]


def test_build_refuses_and_leaves_nothing_behind(tmp_path):
    src = make_tree(tmp_path / "src")
    out = tmp_path / "out"
    with pytest.raises(QLogError, match="only"):
        build_benchmark([(src, "v1")], out, n_queries=10_000)
    with pytest.raises(QLogError, match="twice"):
        build_benchmark([(src, "v1"), (src, "v1")], out)
    with pytest.raises(QLogError, match="not both"):
        build_benchmark([(src, "v1")], out, n_queries=1, query_fraction=0.5)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(QLogError, match="no documented functions"):
        build_benchmark([(empty, "e")], out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "src"]  # no out, no temp folders


def test_build_overwrite(tmp_path):
    src = make_tree(tmp_path / "src")
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    with pytest.raises(QLogError, match="not empty"):
        build_benchmark([(src, "v1")], out)
    assert (out / "keep.txt").read_text() == "mine"
    # overwrite replaces only a folder this tool wrote: a keep.txt makes it refuse
    with pytest.raises(QLogError, match="not a corpus folder this tool wrote"):
        build_benchmark([(src, "v1")], out, overwrite=True)
    assert (out / "keep.txt").read_text() == "mine"
    (out / "keep.txt").unlink()
    build_benchmark([(src, "v1")], out)
    build_benchmark([(src, "v2")], out, overwrite=True)
    assert sorted(p.name for p in out.iterdir()) == [".qlog-pyserini.json", "corpus.jsonl", "manifest.json", "qrels",
                                                     "qrels.txt", "queries-without-name.jsonl", "queries.jsonl",
                                                     "topics.tsv"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "src"]
