"""The garbage collector's older generations collected between a worker's requests, never
inside one.

A worker keeps its opened library out of the collector's reach (`gc.freeze`: LiveLibrary), but
what the bounded caches fill with after that is the collector's to walk, and a collection of an
older generation falls on whichever request allocated the object that tipped its count: a full
one costs nearly what a request may cost in all (docs/benchmarks.md, "Garbage collection
between requests"). In a worker (`webapp.serving.Worker`) the youngest generation, which holds
only what was made since its last collection, is still collected by Python inside a request;
the two older ones are collected after a request's answer is written and its connection
closed, as often as Python's default thresholds would collect them.
"""
from __future__ import annotations

import gc

# Python's defaults: a middle-generation collection every 10 young ones, a full one every 10
# middle ones (gc.get_threshold()).
YOUNG_PER_MIDDLE = 10
MIDDLE_PER_FULL = 10
# A count no generation reaches: it is never collected by allocations alone.
NEVER = 2**31 - 1


def collect_older_between_requests() -> None:
    """The older two generations are no longer collected by allocations: `between_requests`
    collects them. The youngest's threshold stays as it is."""
    gc.set_threshold(gc.get_threshold()[0], NEVER, NEVER)


def between_requests() -> None:
    """Collects the oldest generation whose turn has come by `gc.get_count()` (young
    collections since the last middle one, middle ones since the last full one), if any."""
    _, young, middle = gc.get_count()
    if middle >= MIDDLE_PER_FULL:
        gc.collect(2)
    elif young >= YOUNG_PER_MIDDLE:
        gc.collect(1)
