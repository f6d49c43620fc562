"""Reading documents into records: the first stage of the pipeline.

`corpus` reads `sources.toml`, each document family has its parser (`parsers/`), `comprules`
reads the Comprehensive Rules files and `timeline` places their editions, `glossary` the
game's terms; `ingest` runs them over the input paths and gives the `Record`s of `records`.
Text cleaning, rule references, Chinese script conversion and the caches bounded in bytes
(`bounded_cache`) that every stage uses live here too, at the bottom of the pipeline.
"""
