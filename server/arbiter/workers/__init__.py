"""``arbiter serve --processes N``: N worker processes of one arbiter on one machine (docs/processes.md).

``directory``: the shared SQLite file saying which worker holds which bot, and where each worker
listens. ``role``: one worker's part at run time (redirects, seeks moved to worker 0, releases).
``supervisor``: the process that starts the workers, watches them and stops them.
"""

from .directory import WorkerDirectory
from .role import MOVE_SEEK_AFTER, WorkerRole, WorkerStart

__all__ = ["MOVE_SEEK_AFTER", "WorkerDirectory", "WorkerRole", "WorkerStart"]
