"""`python -m query` runs the `tablebase` command."""
from __future__ import annotations

import sys

from query.cli import main

sys.exit(main())
