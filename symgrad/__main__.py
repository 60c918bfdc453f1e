"""``python -m symgrad``: the command line of ``symgrad.cli``."""
import sys

from .cli import main

sys.exit(main())
