"""JUnit XML, the test-report format CI systems read (Jenkins, GitLab, GitHub Actions reporters,
Azure Pipelines, CircleCI, ...).

The layout is the one Ant's JUnit task writes and the Jenkins schema ``junit-10.xsd`` describes:
a ``<testsuites>`` root with totals, one ``<testsuite>`` per group with its counts, optional
``<properties>``, and one ``<testcase classname=... name=... time=...>`` per test, which holds a
``<failure>`` (the test ran and missed its expectation), an ``<error>`` (it could not be run as
written) or a ``<skipped>`` element, or nothing when it passed, then its ``<system-out>``.
Times are seconds with at most three decimals, as that schema requires.

Only the standard library is used, so that the launcher can report a package that does not
import in this format too.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["ERROR", "FAILURE", "PASSED", "SKIPPED", "JunitCase", "JunitSuite", "junit_xml", "one_line"]

#: What became of a test case.
PASSED, FAILURE, ERROR, SKIPPED = "passed", "failure", "error", "skipped"
#: A ``message`` attribute is one line of at most this many characters.
MESSAGE_LIMIT = 2000

# XML 1.0 allows only these characters (section 2.2); anything else, e.g. a NUL a spec's error
# message carries, would make the whole file unreadable, so it is written as an escape.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


@dataclass(frozen=True, slots=True)
class JunitCase:
    """One ``<testcase>``: ``status`` is :data:`PASSED`, :data:`FAILURE`, :data:`ERROR` or
    :data:`SKIPPED`; ``message`` (one line) and ``type`` go on the failure, error or skipped
    element, ``details`` in its text; ``output`` is the case's ``<system-out>``."""

    classname: str
    name: str
    seconds: float = 0.0
    status: str = PASSED
    message: str = ""
    type: str = ""
    details: str = ""
    output: str = ""


@dataclass(frozen=True, slots=True)
class JunitSuite:
    """One ``<testsuite>``: its name, its cases, and ``properties`` (name, value) in order."""

    name: str
    cases: tuple[JunitCase, ...]
    properties: tuple[tuple[str, str], ...] = ()
    timestamp: str | None = None

    def count(self, status: str) -> int:
        return sum(case.status == status for case in self.cases)

    @property
    def seconds(self) -> float:
        return sum(case.seconds for case in self.cases)


def one_line(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` on one line (runs of whitespace, newlines included, become one space), cut to ``limit``."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


def junit_xml(suites: Sequence[JunitSuite], *, name: str) -> str:
    """The JUnit XML document of ``suites`` under a ``<testsuites name=name>`` root, with totals."""
    root = ET.Element("testsuites", _counts(name, suites, root=True))
    for suite in suites:
        attributes = _counts(suite.name, [suite], root=False)
        if suite.timestamp is not None:
            attributes["timestamp"] = suite.timestamp
        node = ET.SubElement(root, "testsuite", attributes)
        if suite.properties:
            properties = ET.SubElement(node, "properties")
            for key, value in suite.properties:
                ET.SubElement(properties, "property", {"name": _text(key), "value": _text(value)})
        for case in suite.cases:
            _testcase(node, case)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _testcase(parent: ET.Element, case: JunitCase) -> None:
    node = ET.SubElement(
        parent,
        "testcase",
        {"classname": _text(case.classname), "name": _text(case.name), "time": _seconds(case.seconds)},
    )
    if case.status != PASSED:
        outcome = ET.SubElement(node, case.status, {"message": _text(one_line(case.message))})
        if case.type:
            outcome.set("type", _text(case.type))
        if case.details:
            outcome.text = _text(case.details)
    if case.output:
        ET.SubElement(node, "system-out").text = _text(case.output)


def _counts(name: str, suites: Sequence[JunitSuite], *, root: bool) -> dict[str, str]:
    cases = [case for suite in suites for case in suite.cases]
    counts = {
        "name": _text(name),
        "tests": str(len(cases)),
        "failures": str(sum(case.status == FAILURE for case in cases)),
        "errors": str(sum(case.status == ERROR for case in cases)),
    }
    if not root:  # the schema has no skipped count on the root
        counts["skipped"] = str(sum(case.status == SKIPPED for case in cases))
    counts["time"] = _seconds(sum(case.seconds for case in cases))
    return counts


def _seconds(value: float) -> str:
    return f"{max(value, 0.0):.3f}"


def _text(value: str) -> str:
    return _NOT_XML.sub(lambda match: repr(match[0])[1:-1], str(value))
