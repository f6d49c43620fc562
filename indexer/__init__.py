"""The pipeline from documents to answers, one subpackage per stage, importing only downwards:

- `indexer.documents`: sources, one parser per document family and the rules-file reader
  turn documents into records;
- `indexer.search`: script folding, analysis, the schema, the engine and the index build;
- `indexer.knowledge`: the service that answers questions about one build.

`mtgrules ingest|build` (the command line, `mtgrules/`; `python -m indexer` runs it too) runs
the first two stages; the web app (`webapp`) sits on the third.
"""
