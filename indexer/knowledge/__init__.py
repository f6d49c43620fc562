"""The knowledge-base service: every question the web app and the command line ask.

`Library` (library.py) is the facade over one opened index build; `LiveLibrary` (live.py)
follows the build the index root names. Behind the facade, one module per responsibility:
`catalogue` (look-up tables of the build's records), `expansion` (what a query means:
glossary forms, defining rules), `ranking` (engine scores plus exact-answer bonuses, with the
weights in one typed place), `grouping` (one result per rule across editions), `snippets`,
`results` (the fields of a search result), `spelling` (did-you-mean), `suggestions`
(autocomplete), `rules` (a rule page) and `editions` (a rule's history).
"""
