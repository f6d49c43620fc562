"""`python -m mtgrules ...`: the `mtgrules` command."""
import sys

from mtgrules.commands import main

sys.exit(main())
