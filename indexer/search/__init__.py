"""The search index: the second stage of the pipeline.

`folding` and `analysis` turn text into the terms of the schema (`schema`), `highlighting` finds a
query's words in a text, `query` parses the query language, `engine` is the interface the
knowledge service searches through and `whoosh_engine` its implementation; `build` writes a
build folder and switches the index root to it, `opened_build` opens one, `record_lines` holds
its files of one line per record, and `lineage` aligns the rules of each edition with the next's.
"""
