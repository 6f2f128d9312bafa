"""``python -m bluegray``: the same as the ``bluegray`` command."""

import sys

from bluegray.cli.main import main

sys.exit(main())
