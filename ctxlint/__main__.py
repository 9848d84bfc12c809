"""`python -m ctxlint`: the same command line as the `ctxlint` script."""

import sys

from ctxlint.cli import main

sys.exit(main())
