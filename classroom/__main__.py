"""``python -m classroom``: see ``classroom.cli``."""

import sys

from classroom.cli import main

sys.exit(main())
