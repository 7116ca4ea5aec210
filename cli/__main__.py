"""``python -m cli`` is the same as ``trumps``."""

import sys

from cli.main import main

sys.exit(main())
