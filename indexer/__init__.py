"""`python -m indexer ingest|build`: reading documents into records and building the index.

The pipeline itself lives in its packages: `documents` (sources, parsers and the rules-file
reader turn documents into records), `search` (analysis, the engine and the build) and
`knowledge` (the service that answers questions about a build).
"""
