"""Start a process as a user's terminal would, for the tests that press Ctrl-C.

A process started from a shell has SIGINT at its default, and Python turns it into KeyboardInterrupt.
A test runner's process may have SIGINT ignored (a pytest-xdist worker after an in-process test whose
sampler ignored it), and an ignored disposition survives ``exec``: the process under test would never
see the Ctrl-C.  ``preexec_fn=default_sigint`` puts the default back in the child before it starts.
"""

from __future__ import annotations

import signal


def default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
