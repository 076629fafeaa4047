"""The examples of the README and of ``docs/`` run as printed (the root ``conftest.py`` collects them).

A page's examples are its fenced blocks, found by Sybil's Markdown parsers:

- ```` ```console ````: lines starting with ``$ `` are commands (a line ending with `` \\`` continues on
  the next line); the lines up to the next command are the expected output, compared line by line
  after stripping trailing spaces, where a line ``...`` matches any number of lines and ``...`` inside
  a line matches any text.  A last expected line ``[exit N]`` says the command exits ``N``; otherwise
  it must exit 0.  A command with no expected output (or only ``[exit N]``) is checked by its exit code.
- ```` ```python ````: executed, the page's blocks in order in one namespace.
- ```` ```pycon ```` (or a ```` ```python ```` block starting with ``>>>``): a doctest, with ``ELLIPSIS``.

An HTML comment on its own line just before a block, ``<!-- example: skip: REASON -->`` or
``<!-- example: slow -->``, skips the block or marks it slow.

The page's examples run in order in one scratch directory: a copy of the repository's tracked files.
Commands run with bash there, with the running interpreter's ``bin`` first on ``PATH``; a ``cd`` or an
``export`` carries over to the page's later commands.  Python blocks run with that directory as the
working directory and first on ``sys.path``.
"""

from __future__ import annotations

import difflib
import doctest
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from sybil import Document, Example, Region, Sybil
from sybil.evaluators.doctest import DocTestEvaluator
from sybil.example import SybilFailure
from sybil.parsers.abstract import DocTestStringParser
from sybil.parsers.markdown import CodeBlockParser, PythonCodeBlockParser
from sybil.parsers.markdown.lexers import FENCE, DirectiveInHTMLCommentLexer, FencedCodeBlockLexer

RUN_LANGUAGES = ("console", "python", "pycon")
COMMAND_TIMEOUT = 300.0
_EXIT_LINE = re.compile(r"^\[exit (\d+)\]$")
_DIRECTIVE = re.compile(r"^(?:skip(?::(?P<reason>.*))?|(?P<slow>slow))$", re.DOTALL)


class ExampleError(ValueError):
    """A page whose examples are malformed (an error when the page is collected)."""


# --- console blocks -------------------------------------------------------------------------------------


@dataclass
class Command:
    text: str  # as bash reads it (continuation lines kept)
    expected: list[str]  # expected output lines, trailing spaces stripped, without the exit line
    exit_code: int
    line: int  # the command's line in the page
    compare: bool  # False: no output shown, only the exit code is checked


def parse_console(source: str, first_line: int) -> list[Command]:
    """The commands of a console block whose first source line is line ``first_line`` of the page."""
    lines = source.splitlines()
    commands: list[Command] = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            if lines[i].strip():
                raise ExampleError(f"line {first_line + i}: output before the first `$ ` command: {lines[i]!r}")
            i += 1
            continue
        start = i
        text = [lines[i][2:]]
        while text[-1].endswith(" \\") and i + 1 < len(lines):
            i += 1
            text.append(lines[i])
        i += 1
        expected: list[str] = []
        while i < len(lines) and not lines[i].startswith("$ "):
            expected.append(lines[i].rstrip())
            i += 1
        while expected and not expected[-1]:
            expected.pop()
        exit_code = 0
        if expected and (match := _EXIT_LINE.match(expected[-1])):
            exit_code = int(match.group(1))
            expected.pop()
            while expected and not expected[-1]:
                expected.pop()
        for offset, line in enumerate(expected):
            if _EXIT_LINE.match(line):
                raise ExampleError(f"line {first_line + start + 1 + offset}: `{line}` must be the command's last line")
        commands.append(Command("\n".join(text), expected, exit_code, first_line + start, bool(expected)))
    return commands


def _line_matches(expected: str, actual: str) -> bool:
    if "..." not in expected:
        return expected == actual
    pattern = ".*".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, actual, re.DOTALL) is not None


def output_matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` fits ``expected``: a line ``...`` stands for any number of lines, ``...``
    inside a line for any text (both lists with trailing spaces stripped)."""
    n = len(actual)
    # reachable[j]: the expected lines so far can match exactly actual[:j]
    reachable = [True] + [False] * n
    for line in expected:
        if line.strip() == "...":
            for j in range(1, n + 1):
                reachable[j] = reachable[j] or reachable[j - 1]
        else:
            reachable = [False] + [reachable[j - 1] and _line_matches(line, actual[j - 1]) for j in range(1, n + 1)]
    return reachable[n]


@dataclass
class Shell:
    """The state a page's commands share: the scratch directory, the working directory and the
    exported environment (a ``cd`` or ``export`` carries over to the next command)."""

    scratch: Path
    cwd: Path
    env: dict[str, str]
    timeout: float = COMMAND_TIMEOUT

    @classmethod
    def create(cls, scratch: Path, timeout: float = COMMAND_TIMEOUT) -> Shell:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT_TEST"))}
        # `dpverify`, `python` and `pytest` are the test environment's: sys.executable's folder (not
        # resolved: a virtual environment's python is a link out of it).
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        if (scratch / "src" / "dpverify").is_dir():
            # the commands import the copy's dpverify, so what they write beside the package (certificates
            # from `dpverify prove`, for one) lands in the copy, never in the checkout the tests run from
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(scratch / "src"), env.get("PYTHONPATH")]))
        return cls(scratch, scratch, env, timeout)

    def run(self, command: Command) -> tuple[int, list[str]]:
        state = self.scratch.parent / f".{self.scratch.name}-state"
        script = (
            f"{command.text}\n"
            "__example_status=$?\n"
            f'{{ pwd -P; }} > "{state}.cwd" && env -0 > "{state}.env"\n'
            "exit $__example_status\n"
        )
        process = subprocess.Popen(
            ["bash", "-c", script],
            cwd=self.cwd,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: a hang is ended with everything it started
        )
        try:
            output, _ = process.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            output, _ = process.communicate()
            raise SybilTimeout(command, self.timeout, output.decode(errors="replace")) from None
        cwd, env = Path(f"{state}.cwd"), Path(f"{state}.env")
        if cwd.exists() and env.exists():  # absent when the command itself ran `exit`
            self.cwd = Path(cwd.read_text().strip())
            entries = env.read_bytes().split(b"\0")
            self.env = dict(e.decode(errors="replace").split("=", 1) for e in entries if b"=" in e)
            self.env.pop("__example_status", None)
            cwd.unlink()
            env.unlink()
        return process.returncode, [line.rstrip() for line in output.decode(errors="replace").splitlines()]


class SybilTimeout(Exception):
    def __init__(self, command: Command, timeout: float, output: str) -> None:
        super().__init__(
            f"line {command.line}: the command did not finish within {timeout:g} s and was killed:\n"
            f"$ {command.text}\n--- output so far ---\n{output}"
        )


def check_command(command: Command, code: int, actual: list[str]) -> str | None:
    """What is wrong with a command's run, or None."""
    trimmed = list(actual)
    while trimmed and not trimmed[-1]:
        trimmed.pop()
    output_ok = not command.compare or output_matches(command.expected, trimmed)
    if output_ok and code == command.exit_code:
        return None
    why = []
    if code != command.exit_code:
        if command.exit_code == 0:
            why.append(f"it exited {code} (a command expected to fail ends its output with `[exit {code}]`)")
        else:
            why.append(f"it exited {code}, not {command.exit_code}")
    if not output_ok:
        why.append("its output differs from the page's")
    expected_shown = command.expected + ([f"[exit {command.exit_code}]"] if command.exit_code else [])
    actual_shown = trimmed + ([f"[exit {code}]"] if code else [])
    diff = "\n".join(
        difflib.unified_diff(expected_shown, actual_shown, "expected (the page)", "actual", lineterm="", n=3)
    )
    return (
        f"line {command.line}: {'; '.join(why)}\n$ {command.text}\n"
        f"--- exit code: {code} (expected {command.exit_code})\n"
        f"{diff if not output_ok else '--- output ---' + chr(10) + chr(10).join(actual_shown)}"
    )


class ConsoleEvaluator:
    """Runs a console block's commands in the page's shell (``example.namespace['__shell__']``)."""

    def __call__(self, example: Example) -> str | None:
        shell: Shell = example.namespace["__shell__"]
        source = example.parsed
        first_line = example.line + source.line_offset + 1
        for command in parse_console(str(source), first_line):
            code, actual = shell.run(command)
            problem = check_command(command, code, actual)
            if problem:
                return problem
        return None


# --- pages ----------------------------------------------------------------------------------------------


class PyconParser:
    """```` ```pycon ```` blocks, each ``>>>`` example a doctest region (as Sybil's PythonCodeBlockParser
    treats a ```` ```python ```` block that starts with ``>>>``)."""

    def __init__(self, optionflags: int) -> None:
        self.lexer = FencedCodeBlockLexer(language="pycon", mapping={"source": "source"})
        self.doctests = DocTestStringParser(DocTestEvaluator(optionflags))

    def __call__(self, document: Document) -> Iterator[Region]:
        for block in self.lexer(document):
            source = block.lexemes["source"]
            for region in self.doctests(source, document.path):
                region.adjust(block, source)
                yield region


@dataclass
class Directive:
    action: str  # "skip" or "slow"
    reason: str
    block_start: int  # where the block it applies to starts in the page


class DirectiveParser:
    """``<!-- example: skip: REASON -->`` and ``<!-- example: slow -->``, each before a block it applies to."""

    def __init__(self) -> None:
        self.lexer = DirectiveInHTMLCommentLexer(directive="example", arguments=".*?")

    def __call__(self, document: Document) -> Iterator[Region]:
        for lexed in self.lexer(document):
            where = document.line_column(lexed.start)
            arguments = (lexed.lexemes.get("arguments") or "").strip()
            match = _DIRECTIVE.match(arguments)
            if match is None:
                raise ExampleError(
                    f"{document.path}, {where}: unknown directive `example: {arguments}` "
                    "(`example: skip: REASON` or `example: slow`)"
                )
            reason = (match.group("reason") or "").strip()
            if not match.group("slow") and not reason:
                raise ExampleError(
                    f"{document.path}, {where}: `example: skip` needs a reason (`example: skip: REASON`)"
                )
            closing = document.text.index("-->", lexed.end) + 3
            fence = FENCE.search(document.text, closing)
            between = document.text[closing : fence.start() if fence else len(document.text)]
            language = fence.group("trailing").strip() if fence else ""
            if fence is None or between.strip() or language not in RUN_LANGUAGES:
                raise ExampleError(
                    f"{document.path}, {where}: `example: {arguments}` must be followed by a "
                    f"{', '.join(RUN_LANGUAGES)} block"
                )
            action = "slow" if match.group("slow") else "skip"
            yield Region(lexed.start, closing, Directive(action, reason, fence.start()), None)


SYBIL = Sybil(
    parsers=[
        CodeBlockParser("console", ConsoleEvaluator()),
        PythonCodeBlockParser(doctest_optionflags=doctest.ELLIPSIS),
        PyconParser(doctest.ELLIPSIS),
        DirectiveParser(),
    ],
    patterns=["*.md"],
)


@dataclass
class Page:
    path: Path
    document: Document
    examples: list[tuple[Example, str, str]] = field(default_factory=list)  # (example, "run"/"slow"/"skip", why)

    @property
    def has_slow(self) -> bool:
        return any(kind == "slow" for _, kind, _ in self.examples)

    @property
    def runnable(self) -> bool:
        return any(kind != "skip" for _, kind, _ in self.examples)


def parse_page(path: Path) -> Page:
    """The page's examples, in order, each with whether it runs, is slow or is skipped."""
    document = SYBIL.parse(Path(path))
    blocks = [(region.start, region.end) for region in FencedCodeBlockLexer(language="|".join(RUN_LANGUAGES))(document)]
    marks: dict[int, list[Directive]] = {}
    page = Page(Path(path), document)
    for example in document.examples():
        if isinstance(example.parsed, Directive):
            marks.setdefault(example.parsed.block_start, []).append(example.parsed)
            continue
        if isinstance(example.region.evaluator, ConsoleEvaluator):  # malformed blocks: errors when collected
            parse_console(str(example.parsed), example.line + example.parsed.line_offset + 1)
        block = next((start for start, end in blocks if start <= example.start < end), example.start)
        directives = marks.get(block, [])
        skip = next((d for d in directives if d.action == "skip"), None)
        if skip:
            page.examples.append((example, "skip", skip.reason))
        elif directives:
            page.examples.append((example, "slow", ""))
        else:
            page.examples.append((example, "run", ""))
    return page


def tracked_files(root: Path) -> list[str]:
    done = subprocess.run(["git", "ls-files", "-z"], cwd=root, capture_output=True, check=False, timeout=60)
    if done.returncode != 0:
        raise RuntimeError(
            f"the examples run in a copy of the repository's tracked files: `git ls-files` failed in "
            f"{root}: {done.stderr.decode(errors='replace').strip()}"
        )
    return [name for name in done.stdout.decode().split("\0") if name]


def scratch_copy(root: Path, destination: Path, files: list[str] | None = None) -> Path:
    """A copy of ``root``'s tracked files (as in the working tree) under ``destination``."""
    destination.mkdir(parents=True, exist_ok=True)
    made: set[Path] = set()
    for name in tracked_files(root) if files is None else files:
        source = root / name
        if not source.is_symlink() and not source.is_file():
            continue  # deleted in the working tree, or a submodule
        target = destination / name
        if target.parent not in made:
            target.parent.mkdir(parents=True, exist_ok=True)
            made.add(target.parent)
        if source.is_symlink():
            os.symlink(os.readlink(source), target)
        else:
            shutil.copy2(source, target)
    return destination


class PageFailure(AssertionError):
    pass


def run_page(page: Page, root: Path, *, slow: bool = True, timeout: float = COMMAND_TIMEOUT) -> dict[str, float]:
    """Run the page's examples in order in a fresh scratch copy of ``root``'s tracked files; the first
    failure raises ``PageFailure`` naming the line.  ``slow=False`` leaves the slow examples out.
    Returns the time spent copying and running."""
    base = Path(tempfile.mkdtemp(prefix="dpverify-examples-"))
    started = time.perf_counter()
    scratch = scratch_copy(root, base / "repo")
    copied = time.perf_counter() - started
    namespace = page.document.namespace
    namespace.clear()
    namespace["__shell__"] = Shell.create(scratch, timeout)
    old_cwd, old_path = os.getcwd(), list(sys.path)
    modules_before = set(sys.modules)
    os.chdir(scratch)
    sys.path.insert(0, str(scratch))
    try:
        for example, kind, _ in page.examples:
            if kind == "skip" or (kind == "slow" and not slow):
                continue
            try:
                example.evaluate()
            except SybilFailure as failure:
                raise PageFailure(
                    f"{page.path}, {failure.result.strip()}"
                    if isinstance(example.region.evaluator, ConsoleEvaluator)
                    else str(failure)
                ) from None
            except SybilTimeout as timeout_error:
                raise PageFailure(f"{page.path}, {timeout_error}") from None
            except Exception as error:
                raise PageFailure(
                    f"{page.path}, line {example.line}: the example raised {type(error).__name__}: {error}"
                ) from error
    finally:
        os.chdir(old_cwd)
        sys.path[:] = old_path
        for name in set(sys.modules) - modules_before:  # modules imported from the scratch copy
            if str(getattr(sys.modules[name], "__file__", None) or "").startswith(str(base)):
                del sys.modules[name]
        namespace.clear()
        shutil.rmtree(base, ignore_errors=True)
    return {"copy": copied, "total": time.perf_counter() - started}
