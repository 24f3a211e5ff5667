"""``prefetched``: the next batch is made while the caller handles this one, in order, errors in place."""

from __future__ import annotations

import threading

import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.lucene.batch import prefetched


def test_items_come_in_order_and_all_of_them():
    assert list(prefetched(iter(range(50)))) == list(range(50))
    assert list(prefetched(iter([]))) == []


def test_the_next_item_is_made_while_the_caller_holds_this_one():
    made = [threading.Event() for _ in range(3)]

    def items():
        for i in range(3):
            made[i].set()
            yield i

    for i in prefetched(items()):
        if i + 1 < len(made):
            # the caller has not asked for the next item yet, and it gets made all the same
            assert made[i + 1].wait(timeout=30)


def test_an_error_making_an_item_is_raised_in_its_place():
    def items():
        yield 1
        raise QLogError("search failed")

    got = []
    with pytest.raises(QLogError, match="search failed"):
        for item in prefetched(items()):
            got.append(item)
    assert got == [1]


def test_a_caller_that_stops_early_stops_the_producer():
    made = []

    def items():
        for i in range(100):
            made.append(i)
            yield i

    for item in prefetched(items()):
        if item == 2:
            break
    assert made == [0, 1, 2, 3]  # at most one item made ahead
