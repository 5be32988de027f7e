"""Where GUI tests save the screenshots a person looks at before a UI change lands.

``A2A_SCREENSHOT_DIR`` chooses the folder (default ``/tmp/a2a-workbench-screenshots``); it
is created on import, so a test that saves a grab never depends on another test's run.
"""

from __future__ import annotations

import os
from pathlib import Path

SHOTS = Path(os.environ.get("A2A_SCREENSHOT_DIR", "/tmp/a2a-workbench-screenshots"))
SHOTS.mkdir(parents=True, exist_ok=True)
