"""``check --base`` fails closed: the comparison reads both versions from the repository however
dpverify and the project are installed, a spec that may have changed and was not compared makes
the run inconclusive, and what a function reads (module constants, class attributes, re-exports)
is part of its code.

Each test builds a throwaway git repository, commits a sampler, commits a change, and runs the
gate from inside it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from dpverify.verify.changes._source_layout import SourceLayout
from dpverify.verify.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def _repository(repo: Path, files: dict[str, str], changes: dict[str, str]) -> None:
    """``files`` committed, then ``changes`` laid over them and committed: HEAD~1 and HEAD."""
    _git(repo, "init", "-q")
    for commit in (files, changes):
        for name, text in commit.items():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            (repo / name).write_text(text)
        _git(repo, "add", ".")
        _git(repo, "commit", "-qm", "a version")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A unique module prefix; the test's repository is the current directory, and every module
    it imported is forgotten afterwards, as a new process would not have them."""
    prefix = f"gate_{tmp_path.name.replace('-', '_')}"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    yield tmp_path, prefix
    for name in [m for m in sys.modules if m.startswith(prefix)]:
        del sys.modules[name]


SPEC_MODULE = """
from fractions import Fraction
from dpverify.specs import Case, Integer, SamplesPmf, Spec
from {prefix}_sampler import sample

SPECS = (Spec(name="{prefix}", sampler=sample, parameters={{"n": Integer(1, search=(1, 6))}},
              cases=[Case({{"n": 3}})], claim=SamplesPmf(),
              pmf=lambda p: {{i: Fraction(1, p["n"]) for i in range(p["n"])}}),)
"""


def _check_base(prefix: str, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str]:
    code = main(["check", "--spec-module", f"{prefix}_specs", "--base", "HEAD~1", *extra])
    return code, capsys.readouterr().out


# --- what a function reads is part of its code ----------------------------------------------------------


@pytest.mark.parametrize(
    "before, after, read",
    [
        pytest.param(
            "SHIFT = 0\n\ndef sample(n, rng):\n    return rng.randbelow(n) + SHIFT\n",
            "SHIFT = 1\n\ndef sample(n, rng):\n    return rng.randbelow(n) + SHIFT\n",
            "SHIFT",
            id="module constant",
        ),
        pytest.param(
            "SHIFT = 0\n\ndef sample(n, rng, shift=SHIFT):\n    return rng.randbelow(n) + shift\n",
            "SHIFT = 1\n\ndef sample(n, rng, shift=SHIFT):\n    return rng.randbelow(n) + shift\n",
            "SHIFT",
            id="constant behind a default argument",
        ),
        pytest.param(
            "BASE = 0\nSHIFT = BASE\n\ndef sample(n, rng):\n    return rng.randbelow(n) + SHIFT\n",
            "BASE = 1\nSHIFT = BASE\n\ndef sample(n, rng):\n    return rng.randbelow(n) + SHIFT\n",
            "BASE",
            id="constant a constant reads",
        ),
        pytest.param(
            "class Draw:\n    SHIFT = 0\n\n    def run(self, n, rng):\n        return rng.randbelow(n) + self.SHIFT\n\n"
            "def sample(n, rng):\n    return Draw().run(n, rng)\n",
            "class Draw:\n    SHIFT = 1\n\n    def run(self, n, rng):\n        return rng.randbelow(n) + self.SHIFT\n\n"
            "def sample(n, rng):\n    return Draw().run(n, rng)\n",
            "Draw (class attributes)",
            id="class attribute",
        ),
    ],
)
def test_a_change_in_what_the_sampler_reads_gets_its_spec_compared(
    project: tuple[Path, str], capsys: pytest.CaptureFixture[str], before: str, after: str, read: str
) -> None:
    repo, prefix = project
    _repository(
        repo,
        {f"{prefix}_sampler.py": before, f"{prefix}_specs.py": SPEC_MODULE.format(prefix=prefix)},
        {f"{prefix}_sampler.py": after},
    )
    code, out = _check_base(prefix, capsys)
    assert code == 1, out
    assert f"VIOLATED {prefix}" in out and "the laws differ at output 0: old 1/3" in out
    assert f"{prefix}_sampler.py:" in out and read in out  # the changed line names what it read


def test_a_helper_re_exported_by_a_package_is_read_at_the_base_too(
    project: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """``from package import offset``, the package's ``__init__`` unchanged and re-exporting it from
    a changed module: the old code must run the old ``offset``, or the diff compares the new
    code with itself and proves nothing."""
    repo, prefix = project
    sampler = f"from {prefix}_pkg import offset\n\n\ndef sample(n, rng):\n    return rng.randbelow(n) + offset()\n"
    _repository(
        repo,
        {
            f"{prefix}_pkg/__init__.py": "from .impl import offset\n",
            f"{prefix}_pkg/impl.py": "def offset():\n    return 0\n",
            f"{prefix}_sampler.py": sampler,
            f"{prefix}_specs.py": SPEC_MODULE.format(prefix=prefix),
        },
        {f"{prefix}_pkg/impl.py": "def offset():\n    return 1\n"},
    )
    code, out = _check_base(prefix, capsys)
    assert code == 1, out
    assert f"VIOLATED {prefix}" in out and "old 1/3" in out and f"{prefix}_pkg/impl.py:offset" in out


def test_an_unchanged_sampler_is_proved_without_a_comparison(
    project: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, prefix = project
    sampler = "SHIFT = 0\n\n\ndef sample(n, rng):\n    return rng.randbelow(n) + SHIFT\n"
    _repository(
        repo,
        {f"{prefix}_sampler.py": sampler, f"{prefix}_specs.py": SPEC_MODULE.format(prefix=prefix)},
        {f"{prefix}_sampler.py": "# a comment\n" + sampler, "notes.txt": "text\n"},
    )
    code, out = _check_base(prefix, capsys)
    assert code == 0, out
    assert f"UNCHANGED {prefix}" in out and out.rstrip().endswith(": proved")


# --- the engine's interface stays the engine's ----------------------------------------------------------


def _samplers_repository(repo: Path) -> None:
    """One commit holding dpverify's ``pyproject.toml`` and its ``samplers/`` as they are in use, so
    that HEAD's samplers are the running ones whatever the checkout holds uncommitted."""
    import dpverify.samplers as in_use

    if not (ROOT / "pyproject.toml").is_file():
        pytest.skip("needs dpverify's pyproject.toml (its source layout)")
    (repo / "samplers").mkdir()
    (repo / "src" / "dpverify").mkdir(parents=True)
    (repo / "src" / "dpverify" / "samplers").symlink_to(Path("..", "..", "samplers"))  # as in a checkout
    (repo / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    for source in Path(in_use.__file__).parent.glob("*.py"):
        (repo / "samplers" / source.name).write_text(source.read_text())
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "the samplers")


BOOL_MESSAGE = '(a bool).")'
FRACTION_PARSE = "return _within_bits(name, Fraction(value), value)"


@pytest.mark.parametrize(
    "file, before, after, verdict",
    [
        pytest.param(
            "_rational.py",
            BOOL_MESSAGE,
            '(a bool, which is no number).")',
            "PROVED bernoulli:",
            id="an error message edited",
        ),
        pytest.param(
            "_rational.py",
            '    if isinstance(value, bool):\n        raise InvalidArgument(f"{name} must be an exact',
            '    if _is_bool(value):\n        raise InvalidArgument(f"{name} must be an exact',
            "PROVED bernoulli:",
            id="a new helper",
        ),
        pytest.param(
            "_rational.py",
            FRACTION_PARSE,
            "return _within_bits(name, Fraction(value) / 2, value)",
            "VIOLATED bernoulli:",
            id="a change in parsing",
        ),
        pytest.param(
            "_random_source.py",
            "    if rng is None:\n        return _SYSTEM\n",
            "    if rng is None:\n        return _SYSTEM\n    rng = rng\n",
            "INCONCLUSIVE (not comparable) bernoulli:",
            id="a change to the interface itself",
        ),
    ],
)
def test_a_change_in_a_shared_sampler_helper_keeps_the_engine_s_classes_shared(
    project: tuple[Path, str], capsys: pytest.CaptureFixture[str], file: str, before: str, after: str, verdict: str
) -> None:
    """A helper of the samplers' interface module (``shown`` in ``_rational.py``) changed: the old
    samplers must still run on the engine's sources, which are the running ``RandomSource``'s, so
    an unchanged law is proved and a changed one caught.  A change to the interface module itself
    leaves the old code its own ``RandomSource``: not comparable, never violated."""
    repo, _ = project
    _samplers_repository(repo)
    path = repo / "samplers" / file
    text = path.read_text()
    assert text.count(before) == 1
    text = text.replace(before, after)
    if "_is_bool(" in after:
        text += "\n\ndef _is_bool(value: object) -> bool:\n    return isinstance(value, bool)\n"
    path.write_text(text)
    code = main(["check", "--base", "HEAD", "--spec", "bernoulli"])
    out = capsys.readouterr().out
    assert verdict in out, out
    assert "must be a RandomSource" not in out and "the old code fails" not in out
    assert f"changed: samplers/{file}:" in out
    if verdict.startswith("PROVED"):
        assert code == 0 and "(exact equality)" in out, out
    elif verdict.startswith("VIOLATED"):
        assert code == 1 and "the laws differ at output" in out, out
    else:
        assert code == 1 and "samplers/_random_source.py, the engine's interface" in out, out
        assert out.rstrip().splitlines()[-1].startswith("dpverify check --base HEAD: inconclusive;")


# --- nothing compared is never a pass -------------------------------------------------------------------


OUTSIDE_SAMPLER = "def sample(n, rng):\n    return rng.randbelow(n)\n"

BLACK_BOX_SPECS = """
from dpverify.specs import Case, Integer, SamplesPmf, Spec
from {prefix}_outside import sample
from {prefix}_box import draw

SPECS = (Spec(name="{prefix}-outside", sampler=sample, parameters={{"n": Integer(1)}}, cases=[Case({{"n": 3}})],
              claim=SamplesPmf()),
         Spec(name="{prefix}-box", sampler=draw, parameters={{"n": Integer(1)}}, cases=[Case({{"n": 3}})],
              claim=SamplesPmf(), randomness="none"))
"""


def test_a_run_where_every_spec_is_outside_or_not_comparable_is_never_a_pass(
    project: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    repo, prefix = project
    elsewhere = tmp_path_factory.mktemp("installed")  # a module from outside the repository
    (elsewhere / f"{prefix}_outside.py").write_text(OUTSIDE_SAMPLER)
    sys.path.insert(0, str(elsewhere))
    box = "import random\n\n\ndef draw(n):\n    return random.randrange({})\n"
    _repository(
        repo,
        {f"{prefix}_box.py": box.format("n"), f"{prefix}_specs.py": BLACK_BOX_SPECS.format(prefix=prefix)},
        {f"{prefix}_box.py": box.format("n + 1")},
    )
    code, out = _check_base(prefix, capsys)
    assert code == 1, out
    assert f"INCONCLUSIVE (outside) {prefix}-outside" in out and f"INCONCLUSIVE (not comparable) {prefix}-box" in out
    assert (
        out.rstrip().splitlines()[-1].startswith("dpverify check --base HEAD~1: inconclusive; 2 spec(s) whose sampler")
    )
    code, out = _check_base(prefix, capsys, "--allow-uncompared")
    assert code == 0, out
    assert "2 spec(s) NOT COMPARED (not comparable 1, outside 1" in out and "accepted by --allow-uncompared" in out
    document = _diff_json(prefix, capsys)
    assert document["verdict"] == "inconclusive" and set(document["uncompared"]) == {
        f"{prefix}-outside",
        f"{prefix}-box",
    }


def _diff_json(prefix: str, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    import json

    assert main(["diff", "--spec-module", f"{prefix}_specs", "--base", "HEAD~1", "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "schemas" / "diff-1.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(document)
    return document


def test_a_sampler_new_at_the_base_is_not_compared(
    project: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    repo, prefix = project
    _repository(
        repo,
        {"README": "a project\n"},
        {f"{prefix}_sampler.py": OUTSIDE_SAMPLER, f"{prefix}_specs.py": SPEC_MODULE.format(prefix=prefix)},
    )
    code, out = _check_base(prefix, capsys)
    assert code == 1 and f"INCONCLUSIVE (new) {prefix}" in out, out


def test_allow_uncompared_needs_base(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--allow-uncompared"]) == 2
    assert "--allow-uncompared applies to check --base REV only" in capsys.readouterr().err


# --- however dpverify is installed ----------------------------------------------------------------------


def test_the_source_layout_maps_installed_modules_to_the_repository_files() -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("needs the repository's git checkout")
    layout = SourceLayout(ROOT)
    assert str(layout.relative_path("dpverify.samplers.discrete_laplace")) == "samplers/discrete_laplace.py"
    assert str(layout.relative_path("dpverify.verify.gate._catalogue")) == "verify/gate/_catalogue.py"
    assert str(layout.relative_path("dpverify")) == "src/dpverify/__init__.py"
    assert layout.relative_path("fractions") is None and layout.relative_path("_dpverify_tree_0.dpverify") is None


SLIP = ("y = (u + t * v) // s", "y = (u + t * v + 1) // s")


@pytest.mark.slow
def test_a_plain_install_compares_what_an_editable_one_does(tmp_path: Path) -> None:
    """The issue as a maintainer meets it: ``pip install .`` (not editable) into a fresh virtual
    environment, a one-unit change committed in the discrete Laplace, ``check --base HEAD~1``:
    the change is violated in the specs that run it, as with an editable install."""
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("needs the repository's git checkout")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(clone)], check=True, capture_output=True)
    sampler = clone / "samplers" / "discrete_laplace.py"
    text = sampler.read_text()
    assert SLIP[0] in text
    sampler.write_text(text.replace(*SLIP))
    _git(clone, "commit", "-qam", "a one-unit slip")
    environment = tmp_path / "env"
    venv.EnvBuilder(with_pip=False).create(environment)
    python = environment / "bin" / "python"
    # dpverify's own dependencies come from this environment; dpverify itself is installed plainly.
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    dependencies = [p for p in sys.path if p.endswith("site-packages")]
    Path(site, "_dependencies.pth").write_text("\n".join(dependencies) + "\n")
    installed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            str(ROOT),
        ],
        capture_output=True,
        text=True,
    )
    if installed.returncode != 0:
        pytest.skip(f"cannot build a plain install here: {installed.stderr.strip()[-300:]}")
    where = subprocess.run(
        [str(python), "-c", "import dpverify; print(dpverify.__file__)"],
        capture_output=True,
        text=True,
        cwd=clone,
        env={**os.environ, "PYTHONPATH": ""},
    )
    assert where.stdout.startswith(site), where  # the installed copy, not the checkout
    run = subprocess.run(
        [
            str(python),
            "-m",
            "dpverify",
            "check",
            "--base",
            "HEAD~1",
            "--spec",
            "dlaplace",
            "--spec",
            "dgauss",
            "--spec",
            "gtm",
        ],
        capture_output=True,
        text=True,
        cwd=clone,
        env={**os.environ, "PYTHONPATH": ""},
        timeout=600,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    assert "VIOLATED dlaplace" in run.stdout and "VIOLATED dgauss" in run.stdout and "UNCHANGED gtm" in run.stdout
    assert "OUTSIDE" not in run.stdout and "changed: samplers/discrete_laplace.py:_attempt_scaled" in run.stdout
