"""The search index: the second stage of the pipeline.

`folding` and `analysis` turn text into the terms of the schema (`schema`), `marking` finds a
query's words in a text, `query` parses the query language, `engine` is the interface the
knowledge service searches through and `whoosh_engine` its implementation; `build` writes a
build folder and switches the index root to it, `index_build` opens one, `lines` reads its
memory-mapped lines.
"""
