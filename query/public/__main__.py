"""`python -m tablebase` runs the `tablebase` command."""
from __future__ import annotations

import sys

from tablebase.query.cli import main

sys.exit(main())
