"""`python -m promptc` is the `promptc` command."""

from ._cli import main

raise SystemExit(main())
