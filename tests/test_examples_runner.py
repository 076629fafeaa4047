"""The runner of the documentation's examples (``tests/_examples.py``), on small pages in a small
repository: what passes, what fails and what the failure says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from _examples import ExampleError, PageFailure, output_matches, parse_page, run_page

FENCE = "```"


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A git repository with one tracked file and one untracked file (not copied)."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "tracked.txt").write_text("tracked\n", encoding="utf-8")
    (root / "untracked.txt").write_text("untracked\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "tracked.txt"], cwd=root, check=True)
    return root


def _page(tmp_path: Path, *blocks: str) -> Path:
    page = tmp_path / "page.md"
    page.write_text("# A page\n\nSome text.\n\n" + "\n\nText between.\n\n".join(blocks) + "\n", encoding="utf-8")
    return page


def _console(body: str) -> str:
    return f"{FENCE}console\n{body}\n{FENCE}"


def _run(tmp_path: Path, repository: Path, *blocks: str, **options: object) -> None:
    run_page(parse_page(_page(tmp_path, *blocks)), repository, **options)  # type: ignore[arg-type]


def _fails(tmp_path: Path, repository: Path, *blocks: str, **options: object) -> str:
    with pytest.raises(PageFailure) as failure:
        _run(tmp_path, repository, *blocks, **options)
    return str(failure.value)


def test_matching_output_passes_and_the_copy_holds_only_tracked_files(tmp_path: Path, repository: Path) -> None:
    _run(tmp_path, repository, _console("$ ls\ntracked.txt\n$ echo 'trailing  '   \ntrailing"))


def test_differing_output_fails_with_the_command_and_a_diff(tmp_path: Path, repository: Path) -> None:
    message = _fails(tmp_path, repository, _console("$ printf 'one\\ntwo\\n'\none\nthree"))
    assert "line 6" in message and "$ printf 'one\\ntwo\\n'" in message
    assert "-three" in message and "+two" in message and " one" in message
    assert "exit code: 0" in message


def test_ellipsis_lines_and_ellipsis_inside_a_line(tmp_path: Path, repository: Path) -> None:
    _run(tmp_path, repository, _console("$ printf 'a\\nb\\nc\\nseed 1234 ok\\nz\\n'\na\n...\nseed ... ok\n...\nz"))
    _run(tmp_path, repository, _console("$ echo only\n...\nonly\n..."))  # `...` matches no line too
    assert not output_matches(["a", "...", "z"], ["a", "b"])
    assert not output_matches(["x ... y"], ["x y"])  # the text around `...` must be there
    assert output_matches(["x...y"], ["xy"])


def test_a_failing_command_needs_its_exit_line(tmp_path: Path, repository: Path) -> None:
    message = _fails(tmp_path, repository, _console("$ echo no; exit 1\nno"))
    assert "exited 1" in message and "[exit 1]" in message
    _run(tmp_path, repository, _console("$ echo no; exit 1\nno\n[exit 1]"))
    _run(tmp_path, repository, _console("$ false\n[exit 1]"))  # only the exit code shown: only it is checked


def test_an_exit_line_that_does_not_happen_fails(tmp_path: Path, repository: Path) -> None:
    message = _fails(tmp_path, repository, _console("$ echo fine\nfine\n[exit 2]"))
    assert "exited 0, not 2" in message
    assert "exited 3, not 2" in _fails(tmp_path, repository, _console("$ exit 3\n[exit 2]"))


def test_an_exit_line_must_be_the_last_line(tmp_path: Path) -> None:
    with pytest.raises(ExampleError, match="last line"):
        parse_page(_page(tmp_path, _console("$ false\n[exit 1]\nmore")))


def test_a_command_without_output_shown_only_has_to_succeed(tmp_path: Path, repository: Path) -> None:
    _run(tmp_path, repository, _console("$ echo anything"))
    assert "exited 1" in _fails(tmp_path, repository, _console("$ false"))


def test_continuation_lines_are_one_command(tmp_path: Path, repository: Path) -> None:
    _run(tmp_path, repository, _console("$ echo one \\\n    two\none two"))


def test_skip_needs_a_reason(tmp_path: Path) -> None:
    for directive in ("<!-- example: skip -->", "<!-- example: skip:   -->"):
        with pytest.raises(ExampleError, match="needs a reason"):
            parse_page(_page(tmp_path, directive + "\n" + _console("$ false")))
    with pytest.raises(ExampleError, match="unknown directive"):
        parse_page(_page(tmp_path, "<!-- example: sometimes -->\n" + _console("$ false")))
    with pytest.raises(ExampleError, match="must be followed by"):
        parse_page(_page(tmp_path, f"<!-- example: slow -->\n{FENCE}text\nhello\n{FENCE}"))


def test_a_skipped_block_does_not_run(tmp_path: Path, repository: Path) -> None:
    page = parse_page(_page(tmp_path, "<!-- example: skip: it installs things -->\n" + _console("$ false")))
    assert [(kind, why) for _, kind, why in page.examples] == [("skip", "it installs things")]
    run_page(page, repository)


def test_slow_blocks_run_only_when_asked(tmp_path: Path, repository: Path) -> None:
    page = parse_page(_page(tmp_path, _console("$ true"), "<!-- example: slow -->\n" + _console("$ false")))
    assert [kind for _, kind, _ in page.examples] == ["run", "slow"] and page.has_slow
    run_page(page, repository, slow=False)
    with pytest.raises(PageFailure, match="exited 1"):
        run_page(page, repository, slow=True)


def test_a_python_block_that_raises_fails(tmp_path: Path, repository: Path) -> None:
    message = _fails(tmp_path, repository, f"{FENCE}python\nx = 1\nraise ValueError('boom')\n{FENCE}")
    assert "ValueError: boom" in message and "line 5" in message


def test_python_blocks_share_a_namespace_and_pycon_compares(tmp_path: Path, repository: Path) -> None:
    define = f"{FENCE}python\nvalue = 6 * 7\n{FENCE}"
    _run(tmp_path, repository, define, f"{FENCE}pycon\n>>> value\n42\n>>> list(range(30))\n[0, 1, ...]\n{FENCE}")
    message = _fails(tmp_path, repository, define, f"{FENCE}pycon\n>>> value\n41\n{FENCE}")
    assert "Expected:" in message and "41" in message and "42" in message


def test_later_blocks_see_files_earlier_ones_wrote(tmp_path: Path, repository: Path) -> None:
    _run(
        tmp_path,
        repository,
        _console("$ mkdir out && echo written > out/note.txt"),
        _console("$ cat out/note.txt\nwritten"),
        f"{FENCE}python\nfrom pathlib import Path\nassert Path('out/note.txt').read_text() == 'written\\n'\n{FENCE}",
    )
    _run(
        tmp_path,
        repository,
        _console("$ cd out 2>/dev/null || mkdir out && cd out\n$ export X=1\n$ pwd\n.../out"),
        _console("$ echo $X\n1"),
    )  # a cd and an export carry over


def test_commands_use_the_test_environment(tmp_path: Path, repository: Path) -> None:
    _run(tmp_path, repository, _console(f"$ command -v python\n{Path(sys.executable).parent}/python"))


def test_a_hang_is_a_failure_naming_the_command(tmp_path: Path, repository: Path) -> None:
    message = _fails(tmp_path, repository, _console("$ echo started; sleep 30"), timeout=1)
    assert "did not finish within 1 s" in message and "sleep 30" in message and "started" in message
