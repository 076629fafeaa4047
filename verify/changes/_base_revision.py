"""A git revision of the repository, extracted beside the working tree: the old code of a diff,
and the working tree read from the repository too, so that the comparison does not depend on how
dpverify and the project are installed.

:class:`BaseRevision` runs ``git archive REV`` into a temporary directory (removed by
:meth:`BaseRevision.close`, on every exit path of a ``with`` block).  Its :attr:`~BaseRevision.old`
and :attr:`~BaseRevision.new` are the two :class:`~dpverify.verify.changes._repository_tree.RepositoryTree`
views: REV's files and the working tree's, each module found by the repository's
:class:`~dpverify.verify.changes._source_layout.SourceLayout` and imported under a private name
(``_dpverify_base_<commit>.<module>`` for REV) when its code differs from the module in use.  With
an editable install the working tree *is* the code in use; with ``pip install .`` the installed
copy is used only where its code is the working tree's.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path, PurePosixPath
from types import ModuleType
from typing import Any

from dpverify.samplers import DpverifyError, InvalidArgument
from dpverify.samplers._rational import shown
from dpverify.verify.changes._repository_tree import RepositoryTree
from dpverify.verify.changes._source_layout import SourceLayout, module_file_of

__all__ = ["BaseRevision", "module_file_of", "repository_root"]

#: How long a git command may take before the revision is called unreadable.
GIT_TIMEOUT_S = 120


def _git(arguments: list[str], cwd: Path, *, text: bool = True) -> subprocess.CompletedProcess[Any]:
    try:
        return subprocess.run(
            ["git", *arguments], cwd=cwd, capture_output=True, text=text, timeout=GIT_TIMEOUT_S, check=False
        )
    except FileNotFoundError:
        raise InvalidArgument("--base needs git on the PATH; it was not found.") from None
    except subprocess.TimeoutExpired:
        raise DpverifyError(f"git {arguments[0]} took more than {GIT_TIMEOUT_S} s in {cwd}.") from None


def repository_root(where: Path | str | None = None) -> Path:
    """The top of the git working tree that holds ``where`` (default: the current directory)."""
    where = Path.cwd() if where is None else Path(where)
    found = _git(["rev-parse", "--show-toplevel"], where)
    if found.returncode != 0:
        raise InvalidArgument(
            f"--base needs a git repository; the directory {shown(str(where))} is not in one "
            "(run dpverify from the repository's checkout)."
        )
    return Path(found.stdout.strip()).resolve()


class BaseRevision:
    """The repository at ``revision`` (:attr:`old`) and its working tree (:attr:`new`), both read
    from the repository (module docstring).  Use it in a ``with`` block, or call :meth:`close`."""

    def __init__(self, revision: str, root: Path | str | None = None) -> None:
        if not isinstance(revision, str) or not revision or revision.startswith("-") or len(revision) > 200:
            raise InvalidArgument(
                f"base must name a git revision, such as HEAD~1 or a commit; got base={shown(revision)}."
            )
        self.root = repository_root(root)
        found = _git(["rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"], self.root)
        if found.returncode != 0:
            hint = (
                " A CI checkout needs history: fetch-depth: 0 (or at least 2 for HEAD~1)."
                if "~" in revision or "^" in revision
                else ""
            )
            raise InvalidArgument(
                f"base must name a commit of the repository at {self.root}; got base={shown(revision)}, "
                f"which git does not know.{hint}"
            )
        self.revision = revision
        self.commit = found.stdout.strip()
        self.token = f"_dpverify_base_{self.commit[:12]}"
        self.directory = Path(tempfile.mkdtemp(prefix="dpverify-base-"))
        self.layout = SourceLayout(self.root)
        self.old = RepositoryTree(self.layout, self.directory, f"revision {revision}", self.token)
        self.new = RepositoryTree(self.layout, self.root, "the working tree")
        #: ``(repository path, qualified name)`` -> what changed in that function (None: nothing),
        #: computed once per run: a shared helper is run by many specs.
        self.function_changes: dict[tuple[str, str], str | None] = {}
        try:
            archive = _git(["archive", "--format=tar", self.commit], self.root, text=False)
            if archive.returncode != 0:
                raise DpverifyError(
                    f"git archive {self.commit[:12]} failed: {archive.stderr.decode(errors='replace').strip()[:200]}"
                )
            with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
                tar.extractall(self.directory, filter="data")
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> BaseRevision:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Forget both trees' private modules and remove the extracted tree (safe to call twice)."""
        self.old.close()
        self.new.close()
        shutil.rmtree(self.directory, ignore_errors=True)

    def relative(self, path: Path | str) -> PurePosixPath | None:
        """The repository path of a file the interpreter ran (a working-tree file, or an installed
        copy of one), or None when it is no file of the repository."""
        return self.layout.locate(str(path))

    def module(self, name: str) -> ModuleType:
        """The module ``name`` as it was at REV."""
        return self.old.module(name)
