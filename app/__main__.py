"""Run the ``deliverables`` command with ``python -m app``.

The packaged app is one executable, so it also runs the PDF worker process
(``app.formats.pdf_worker``) when started with that worker's argument.
"""

import sys

from app.formats.pdf_role import WORKER_ARGUMENT

if sys.argv[1:2] == [WORKER_ARGUMENT]:
    from app.formats.pdf_worker import main as worker_main

    raise SystemExit(worker_main())

from app.cli import main

raise SystemExit(main())
