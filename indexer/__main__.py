"""`python -m indexer ...`: the project's command group (`webapp.cli`): build, ingest, rule,
search, card, term."""
import sys

from webapp.cli import main

sys.exit(main())
