"""Sphinx configuration of dpverify's documentation.

CI builds it strictly, so that a broken link, reference or directive fails the build:

    sphinx-build -W --keep-going -n -b html docs docs/_build/html

(``nox -s docs``). The pages are Markdown (MyST); the Python API comes from the docstrings
(autodoc) and the command-line reference from the ``dpverify`` parser itself (sphinx-argparse).
"""

from __future__ import annotations

import dpverify

project = "dpverify"
release = dpverify.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinxarg.ext",
]

# Only Markdown pages; the reproductions beside the result pages (findings/*.py,
# known-findings/*.py) and the survey's JSON are files, not pages.
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "*.py",
    "**/*.py",
    "*.json",
    "**/*.json",
    "Thumbs.db",
    ".DS_Store",
]

# Commands and options are quoted everywhere (the parser's help texts included): "--json" must not
# become an en dash and "'" must stay an apostrophe.
smartquotes = False

# Headings h1-h3 get GitHub-style anchors, so that `[x](page.md#a-heading)` works as on GitHub.
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence", "deflist"]

# The docstrings are reStructuredText prose (no Google or NumPy sections), so autodoc reads them as
# they are. Members in source order, as the modules present them.
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_preserve_defaults = True
# The compatibility adapters override random.Random's methods; the stdlib's docstrings describe
# random.Random (and their first lines read as bogus signatures), not the adapter.
autodoc_inherit_docstrings = False

# Without network access there is no intersphinx: these names from the standard library and from
# third-party packages cannot be linked, so the nitpicky build (-n) is told that they exist. Every
# entry is an external name; dpverify's own names must resolve.
nitpick_ignore = [
    ("py:class", "fractions.Fraction"),
    ("py:class", "collections.abc.Callable"),
    ("py:class", "collections.abc.Hashable"),
    ("py:class", "collections.abc.Iterable"),
    ("py:class", "collections.abc.Iterator"),
    ("py:class", "collections.abc.Mapping"),
    ("py:class", "collections.abc.Sequence"),
    ("py:mod", "secrets"),
    ("py:class", "mpmath.ctx_mp_python.mpf"),
    ("py:class", "sympy.core.expr.Expr"),
    ("py:func", "z3.parse_smt2_string"),
    # Annotations whose names are imported only for the type checker (hypothesis, fractions), so
    # autodoc cannot evaluate them and shows them as written: SearchStrategy[Fraction] and
    # SearchStrategy[dict[str, Any]], the latter split by Sphinx at its comma.
    ("py:class", "SearchStrategy"),
    ("py:class", "Fraction"),
    ("py:class", "dict[str"),
]

html_theme = "furo"
html_title = f"dpverify {release}"
html_static_path = ["_static"]
