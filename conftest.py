"""The README's and ``docs/``'s examples as tests (``tests/_examples.py`` says what runs and how).

Each page is one test item that runs its examples in order, in one process and one scratch copy of
the repository: its later examples see what earlier ones wrote, whatever way pytest-xdist spreads
the items over its workers.  A page with ``<!-- example: slow -->`` examples has a second item,
``examples[slow]``, marked ``slow``, which runs them all; the first, ``examples``, leaves the slow ones
out and is dropped when both are selected, so a full run runs each page once.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent


def _examples():  # type: ignore[no-untyped-def]
    """``tests/_examples.py``, imported on first use (as ``_examples``, the name the tests use)."""
    if "_examples" not in sys.modules:
        spec = importlib.util.spec_from_file_location("_examples", ROOT / "tests" / "_examples.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["_examples"] = module
        spec.loader.exec_module(module)
    return sys.modules["_examples"]


def _is_page(path: Path) -> bool:
    try:
        relative = path.resolve().relative_to(ROOT)
    except ValueError:
        return False
    if relative == Path("README.md"):
        return True
    return relative.suffix == ".md" and relative.parts[0] == "docs" and "_build" not in relative.parts


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if collection_path.name == "_build" and collection_path.parent.resolve() == ROOT / "docs":
        return True  # the built site
    return None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix == ".md" and _is_page(file_path):
        return ExamplesFile.from_parent(parent, path=file_path)
    return None


class ExamplesFile(pytest.File):
    def collect(self):  # type: ignore[no-untyped-def]
        pytest.importorskip("sybil", reason="the examples are read with Sybil, in the test extra")
        page = _examples().parse_page(self.path)
        if not page.runnable:
            return
        yield ExamplesItem.from_parent(self, name="examples", page=page, slow=False)
        if page.has_slow:
            item = ExamplesItem.from_parent(self, name="examples[slow]", page=page, slow=True)
            item.add_marker(pytest.mark.slow)
            yield item


class ExamplesItem(pytest.Item):
    def __init__(self, *, page, slow: bool, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(**kwargs)
        self.page, self.slow = page, slow

    def runtest(self) -> None:
        times = _examples().run_page(self.page, ROOT, slow=self.slow)
        self.user_properties.append(("copy_seconds", round(times["copy"], 3)))

    def repr_failure(self, excinfo, style=None):  # type: ignore[no-untyped-def]
        if isinstance(excinfo.value, _examples().PageFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):  # type: ignore[no-untyped-def]
        return self.path, 0, f"{self.path.name}::{self.name}"


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]):  # type: ignore[no-untyped-def]
    """After ``-m``/``-k`` deselection: a page whose ``examples[slow]`` item (all its examples) is
    selected does not also run ``examples`` (the same examples without the slow ones)."""
    result = yield
    with_slow = {item.parent.nodeid for item in items if isinstance(item, ExamplesItem) and item.slow}
    dropped = [
        item for item in items if isinstance(item, ExamplesItem) and not item.slow and item.parent.nodeid in with_slow
    ]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if item not in dropped]
    return result
