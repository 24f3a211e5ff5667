"""Doc comment text -> query: the first paragraph of a Go/Ruby line comment, a Javadoc-style block
comment or a Python docstring, with tags, directives and HTML removed."""

from __future__ import annotations

import ast
import html
import re
import warnings
from typing import Any, Iterable, Iterator, Sequence

MIN_QUERY_WORDS = 3


_GO_DIRECTIVE = re.compile(r"^//(go:|line |extern |export |nolint\b|[a-z0-9]+:[a-z0-9])")


_RUBY_DIRECTIVE = re.compile(r"^#\s*(rubocop:|frozen_string_literal:|encoding:|typed:|-\*-)")


_INLINE_TAG = re.compile(r"\{@(\w+)\s*([^{}]*)\}")


# Only real HTML tags: `<positional_bindings>` or `List<String>` in a doc comment is content.
_HTML_TAG = re.compile(
    r"</?(?:a|abbr|b|big|blockquote|br|caption|cite|code|dd|del|dfn|div|dl|dt|em|font|h[1-6]|hr|i|img"
    r"|ins|kbd|li|ol|p|pre|q|s|samp|small|span|strike|strong|sub|sup|table|tbody|td|th|thead|tr|tt"
    r"|u|ul|var)\b[^<>]*>", re.IGNORECASE)


_PARAGRAPH_END = re.compile(r"^(@\w|<p\b)", re.IGNORECASE)


def _first_paragraph(lines: Iterable[str]) -> str:
    """Lines of a doc comment without markers -> its first paragraph, whitespace collapsed."""
    kept: list[str] = []
    for line in lines:
        line = line.strip()
        if not line:
            if kept:
                break
            continue
        if kept and _PARAGRAPH_END.match(line) or line.startswith("@"):
            break  # a block tag, or a Javadoc <p> after some text, ends the description
        kept.append(line)
    return " ".join(" ".join(kept).split())


def _inline_tag(m: re.Match) -> str:
    tag, body = m.group(1), m.group(2).strip()
    if tag in ("link", "linkplain") and " " in body:  # {@link Foo#bar label} -> label
        return body.split(None, 1)[1]
    if tag == "return":  # Javadoc renders {@return x} as "Returns x."
        return f"Returns {body}"
    return "" if tag == "inheritDoc" else body


def block_doc_query(text: str) -> str:
    """``/** ... */`` (Javadoc, PHPDoc, JSDoc) -> first paragraph, tags and HTML removed."""
    body = text[3:-2] if text.endswith("*/") else text[3:]
    lines = [re.sub(r"^\s*\*+ ?", "", line) for line in body.split("\n")]
    para = _first_paragraph(lines)
    while True:  # innermost first: {@return the {@link Currency}}
        para, n = _INLINE_TAG.subn(_inline_tag, para)
        if not n:
            break
    para = html.unescape(_HTML_TAG.sub("", para))
    return " ".join(para.split())


def line_doc_query(texts: Sequence[str], language: str) -> str:
    lines = []
    for t in texts:
        if language == "go":
            if _GO_DIRECTIVE.match(t):
                continue
            lines.append(t[2:])
        else:
            if _RUBY_DIRECTIVE.match(t):
                continue
            lines.append(t.lstrip("#"))
    return _first_paragraph(lines)


def docstring_query(node: Any) -> str:
    raw = node.text.decode("utf-8", "replace")
    try:
        with warnings.catch_warnings():  # old code's invalid escapes ("\p") would warn once per docstring
            warnings.simplefilter("ignore", SyntaxWarning)
            value = ast.literal_eval(raw)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        value = None
    if not isinstance(value, str):  # Python 2 prefixes and the like: use the raw contents
        value = "".join(c.text.decode("utf-8", "replace") for c in walk_type(node, "string_content"))
    # an escaped lone surrogate ("\\ud800") would make the UTF-8 output unwritable
    value = value.encode("utf-8", "replace").decode("utf-8")
    return _first_paragraph(value.split("\n"))


def walk_type(node: Any, type_: str) -> Iterator[Any]:
    for c in node.named_children:
        if c.type == type_:
            yield c
        else:
            yield from walk_type(c, type_)


# Quotes, Markdown/RST code marks and punctuation that may wrap a name at the start of a doc comment.
_NAME_WRAPPING = "`'\"*:,;."
_CALL_SUFFIX = re.compile(r"\(.*\)$")


def leading_name_removed(query: str, name: str) -> str | None:
    """``query`` without its first word when that word is the function's own name, else None.

    Go's convention ("Serve accepts incoming connections ...") and many other doc comments start
    with the function's name, which hands the query a rare identifier of its target; the variant
    without it asks the same question in words only. The first word counts as the name when,
    stripped of quotes, code marks, trailing punctuation and a call suffix (``f()``, ``f(x)``), it
    equals the short name (``Serve``) or the qualified one (``Server.Serve``), case aside. None
    when the query does not start with the name, or nothing but the name would be left.
    """
    words = query.split(None, 1)
    if len(words) < 2:
        return None
    first = _CALL_SUFFIX.sub("", words[0].strip(_NAME_WRAPPING)).strip(_NAME_WRAPPING).lower()
    short = name.rsplit(".", 1)[-1].lower()
    if not first or first not in (short, name.lower()):
        return None
    return words[1]
