"""Benchmarks of the search service: quality and speed against peer engines, HTTP load,
growth with the corpus, cold start, and the live-rebuild soak.

Everything here measures and prints tables (`scripts/bench`, `scripts/soak`); nothing is a
test, and no figure is asserted anywhere. docs/benchmarks.md records the figures of a run.
"""
