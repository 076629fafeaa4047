"""Start a process as a user's terminal would, for the tests that press Ctrl-C.

A process started from a shell has SIGINT at its default, and Python turns it into KeyboardInterrupt.
A test runner's process may have SIGINT ignored: a non-interactive shell starts a background job
(``pytest ... &``, ``nohup``) with SIGINT and SIGQUIT ignored (POSIX, "Signals" in the shell's
specification), and pytest-xdist's workers inherit it.  An ignored disposition survives ``exec``, so
the process under test would never see the Ctrl-C.  (No test leaves SIGINT ignored behind it: a full run
that compared each worker's ``SigIgn`` mask in ``/proc`` before and after every test found no change.)
``preexec_fn=default_sigint`` puts the default back in the child before it starts.
"""

from __future__ import annotations

import signal


def default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
