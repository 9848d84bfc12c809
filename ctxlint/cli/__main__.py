"""`python -m ctxlint.cli`: the same command as `ctxlint` (the tests and benchmarks run it so)."""

import sys

from ctxlint.cli import main

sys.exit(main())
