"""Ingestion, analysis, indexing and search for the rules knowledge base.

Documents become typed records (`records`, `ingest`, `parsers`, `comprules`), records become
a Whoosh index (`analysis`, `schema`, `build`), and `library` answers every question the web
layer and the command line ask.
"""
