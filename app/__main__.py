"""Run the ``deliverables`` command with ``python -m app``."""

from app.cli import main

raise SystemExit(main())
