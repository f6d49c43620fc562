"""`python -m indexer ...`: the `mtgrules` command under the name scripts, messages and older
notes use. A program, not a module of the library: nothing imports it, so the command line
it starts (which sits above `webapp`) is no dependency of `indexer`."""
import sys

from mtgrules.commands import main

sys.exit(main())
