"""The libraries ``dpverify survey`` knows, by name, and the extra that installs each beside
dpverify (the survey itself installs them in environments of their own)."""

from __future__ import annotations

import importlib
from types import ModuleType

from dpverify.samplers import InvalidArgument
from dpverify.samplers._rational import shown

__all__ = ["EXTRAS", "LIBRARIES", "SURVEY_SCHEMA", "library_module"]

#: The survey document's schema id (``schemas/survey-2.schema.json``).
SURVEY_SCHEMA = "dpverify.survey/2"

#: Each library's module in this package, in the table's order.
LIBRARIES: dict[str, str] = {
    "diffprivlib": "dpverify.verify.survey._lib_diffprivlib",
    "opendp": "dpverify.verify.survey._lib_opendp",
    "numpy": "dpverify.verify.survey._lib_numpy",
    "tmlt-core": "dpverify.verify.survey._lib_tmlt",
    "python-dp": "dpverify.verify.survey._lib_pydp",
    "pipeline-dp": "dpverify.verify.survey._lib_pipelinedp",
    "opacus": "dpverify.verify.survey._lib_opacus",
    "smartnoise-sql": "dpverify.verify.survey._lib_smartnoise",
}

#: The extra of ``pyproject.toml`` that installs each library into dpverify's own environment
#: (for ``dpverify survey --here``).
EXTRAS: dict[str, str] = {
    "diffprivlib": "diffprivlib",
    "opendp": "opendp",
    "numpy": "numpy",
    "tmlt-core": "tmlt",
    "python-dp": "pydp",
    "pipeline-dp": "pipelinedp",
    "opacus": "opacus",
    "smartnoise-sql": "smartnoise",
}


def library_module(name: str) -> ModuleType:
    """The survey module of library ``name`` (it imports nothing of the library itself)."""
    if name not in LIBRARIES:
        raise InvalidArgument(f"--library must be one of {', '.join(LIBRARIES)}; got --library={shown(name)}.")
    return importlib.import_module(LIBRARIES[name])
