"""What the engine's verdicts rest on in the process it shares with user code, and the error
raised when user code changed it.

A verdict that depends on a hook (a trace or profile function, the patched ``random`` module,
the time bound's ``SIGALRM`` timer) holds only if the hook saw the whole run.  The code that
installs a hook checks, when the run is over, that it is still in place; if user code removed
or replaced it, the hook is put back and :class:`EnvironmentChanged` is raised, which a case
reports as ``inconclusive`` (never proved).
"""

from __future__ import annotations

__all__ = ["EnvironmentChanged"]


class EnvironmentChanged(BaseException):
    """User code changed what the engine's verdicts rely on (its message says what); everything
    named was put back.  A BaseException, so that no ``except Exception`` on the way up hides it."""
