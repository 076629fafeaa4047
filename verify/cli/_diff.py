"""The command line of ``dpverify diff`` and ``dpverify check --base``.

Exit codes, as every command's (README, "Exit codes"): 0 when every comparison proved the two
versions sample the same law (a changed timing channel is reported, and does not fail); 1 when
some parameter set's laws differ, or could not be decided (inconclusive, a time bound, an old
version that cannot be read); 2 for bad usage (a reference that does not resolve, a revision
git does not know, a parameter outside the domain), with one ``dpverify: error:`` line.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from dpverify.samplers import InvalidArgument, as_fraction, fresh_seed
from dpverify.samplers._rational import shown
from dpverify.verify.engine._arguments import DEFAULT_TIME_LIMIT, elided
from dpverify.verify.engine._results import Verdict
from dpverify.verify.reports._output import add_json_option, emit_json, human_stream
from dpverify.verify.reports._sarif import add_sarif_option, diff_results, emit_sarif

__all__ = ["add_diff_options", "add_diff_parser", "run_check_base", "run_diff"]

#: The schema name, repeated here so that building the parser loads no engine code.
DIFF_SCHEMA = "dpverify.diff/1"


def _fraction_option(name: str) -> Any:
    """An argparse type: a rational in (0, 1), with the project's one-line message."""

    def parse(text: str) -> Fraction:
        try:
            value = as_fraction(name, text)
        except Exception:  # noqa: BLE001 - argparse turns this into the one-line usage error
            value = None
        if value is None or not 0 < value < 1:
            raise argparse.ArgumentTypeError(
                f'{name} must be a rational in (0, 1), such as "1/1000"; got {name}={shown(text)}.'
            )
        return value

    parse.__name__ = name
    return parse


def add_diff_options(parser: argparse.ArgumentParser) -> None:
    """The options ``diff`` and ``check --base`` share."""
    parser.add_argument(
        "--max-tv",
        type=_fraction_option("max-tv"),
        metavar="BOUND",
        help="a bounded (interval) comparison proves two laws equal when its total-variation bound "
        "is at most this (default 1/1000)",
    )
    parser.add_argument(
        "--min-mass",
        type=_fraction_option("min-mass"),
        metavar="MASS",
        help="the mass budget of bounded enumerations, overriding each spec's (smaller: tighter, slower)",
    )
    parser.add_argument(
        "--allow-uncompared",
        action="store_true",
        help="with --base and no REF: accept specs whose sampler may have changed but could not be "
        "compared (outside the repository, new at REV, a black box, unreadable); without it they "
        "make the run inconclusive (exit 1). The verdict line names every spec accepted",
    )


def add_diff_parser(commands: Any, count: Any, max_seed: int, max_time: int) -> None:
    """``dpverify diff``; ``count(name, low, high)`` is the command line's integer option type."""
    diff = commands.add_parser("diff", help="does new sampler code sample the same distribution as the old?")
    diff.add_argument(
        "references",
        nargs="*",
        metavar="REF",
        help="OLD NEW: each module:attribute (a Spec, or a sampler taking rng) or a spec name; with "
        "--base, REF alone compares REF at that revision with REF now",
    )
    diff.add_argument("--base", metavar="REV", help="the old version is REF at this git revision (e.g. HEAD~1)")
    diff.add_argument(
        "--spec-module",
        action="append",
        metavar="MODULE",
        help="with --base and no REF: the specs of this module instead of the installed entry points",
    )
    diff.add_argument(
        "--param",
        action="append",
        metavar="NAME=VALUE,...",
        help="one more parameter set, e.g. scale=3/2,sensitivity=1 (laid over the first case's); repeatable",
    )
    diff.add_argument("--no-cases", action="store_true", help="compare only at --param sets and the search's")
    diff.add_argument(
        "--search-examples",
        type=count("search-examples", 0, 10_000),
        default=None,
        metavar="N",
        help="parameter sets the Hypothesis search draws from the declared domain (default 20; 0: no search)",
    )
    diff.add_argument(
        "--seed", type=count("seed", 0, max_seed), help="seed of the search (default: fresh, and printed)"
    )
    diff.add_argument(
        "--time-limit",
        type=count("time-limit", 1, max_time),
        default=DEFAULT_TIME_LIMIT,
        metavar="SECONDS",
        help=f"bound on each parameter set's comparison (default {DEFAULT_TIME_LIMIT})",
    )
    add_diff_options(diff)
    add_json_option(diff, "the comparison", schema=DIFF_SCHEMA)
    add_sarif_option(diff, "every comparison that did not prove the same law")
    diff.set_defaults(run=run_diff)


def _options(args: argparse.Namespace, seed: int) -> Any:
    from dpverify.verify.changes._diff import DEFAULT_SEARCH_EXAMPLES, DiffOptions
    from dpverify.verify.changes._law_comparison import DEFAULT_MAX_TV

    examples = getattr(args, "search_examples", None)
    return DiffOptions(
        max_tv=args.max_tv or DEFAULT_MAX_TV,
        search_examples=DEFAULT_SEARCH_EXAMPLES if examples is None else examples,
        seed=seed,
        time_limit=args.time_limit,
        min_mass=args.min_mass,
    )


def _report(
    args: argparse.Namespace,
    diffs: Sequence[Any],
    base: Any,
    options: Any,
    head: str,
    command: str = "dpverify diff",
    samplers: dict[str, Any] | None = None,
) -> int:
    from dpverify.verify.changes._diff import diff_document, overall, proved_within
    from dpverify.verify.engine._results import tolerance_text

    human = human_stream(args)
    allow = bool(getattr(args, "allow_uncompared", False))
    print(head, file=human)
    for diff in diffs:
        for line in diff.lines():
            print(line, file=human)
    verdict = overall(diffs, allow_uncompared=allow)
    timing = sum(len(d.timing_changed) for d in diffs)
    tail = f"; the timing channel changed at {timing} parameter set(s)" if timing else ""
    bound = proved_within(diffs) if verdict is Verdict.PROVED else None
    within = (
        "" if bound is None else f" within TV <= {tolerance_text(bound)} (from exact intervals, not exact equality)"
    )
    print(f"{command}: {verdict.value}{within}{tail}{_uncompared_tail(diffs, allow)}", file=human)
    if args.json:
        emit_json(args, diff_document(diffs, base=base, options=options, allow_uncompared=allow))
    code = 0 if verdict is Verdict.PROVED else 1
    emit_sarif(
        args,
        "diff" if command == "dpverify diff" else "check-base",
        lambda locator: diff_results(diffs, locator, base=base, samplers=samplers, allow_uncompared=allow),
        code,
    )
    return code


def _uncompared_tail(diffs: Sequence[Any], allow: bool) -> str:
    """What the verdict line says of specs whose sampler may have changed and was not compared."""
    uncompared = [d for d in diffs if d.uncompared]
    if not uncompared:
        return ""
    counts: dict[str, int] = {}
    for diff in uncompared:
        counts[diff.status] = counts.get(diff.status, 0) + 1
    kinds = ", ".join(f"{status} {count}" for status, count in sorted(counts.items()))
    names = elided(", ".join(d.name for d in uncompared), 200)
    if allow:
        return f"; {len(uncompared)} spec(s) NOT COMPARED ({kinds}: {names}), accepted by --allow-uncompared"
    return (
        f"; {len(uncompared)} spec(s) whose sampler may have changed were not compared ({kinds}: {names}): "
        "see each one's line for what to do, or accept them with --allow-uncompared"
    )


def run_diff(args: argparse.Namespace) -> int:
    from dpverify.verify.changes._base_revision import BaseRevision
    from dpverify.verify.changes._diff import diff_sides
    from dpverify.verify.changes._diff_versions import parse_parameter_set, resolve_reference

    references = list(args.references)
    if args.base is None and len(references) != 2:
        raise InvalidArgument(f"diff needs two references, OLD NEW (or REF --base REV); got {len(references)}.")
    if args.spec_module and (args.base is None or references):
        raise InvalidArgument(
            "diff --spec-module is for --base with no REF (every changed spec of the module); "
            "name a spec of a module as module:attribute."
        )
    if args.base is not None and len(references) not in (0, 1, 2):
        raise InvalidArgument(f"diff --base takes at most two references; got {len(references)}.")
    if args.allow_uncompared and (args.base is None or references):
        raise InvalidArgument(
            "--allow-uncompared is for --base with no REF (every changed spec); a named reference is always compared."
        )
    sets = [parse_parameter_set(text) for text in args.param or ()]
    seed = fresh_seed() if args.seed is None else args.seed
    options = _options(args, seed)
    sys.path.insert(0, os.getcwd())  # a project's own modules, as check --spec-module finds them
    if args.base is None:
        old, new = resolve_reference(references[0]), resolve_reference(references[1])
        diff = diff_sides(old, new, sets, options=options, cases=not args.no_cases)
        return _report(
            args,
            [diff],
            None,
            options,
            f"dpverify diff: {old.label} -> {new.label} (search seed {seed})",
            samplers={diff.name: new.sampler},
        )
    with BaseRevision(args.base) as base:
        if not references:
            from dpverify.verify.gate._discovery import discover

            return _changed(args, base, options, discover(args.spec_module or ()))
        old = resolve_reference(references[0], base)
        new = resolve_reference(references[-1], tree=base.new)
        diff = diff_sides(old, new, sets, options=options, cases=not args.no_cases)
        return _report(
            args,
            [diff],
            base,
            options,
            f"dpverify diff: {old.label} ({base.commit[:12]}) -> {new.label} (search seed {seed})",
            samplers={diff.name: new.sampler},
        )


def _changed(args: argparse.Namespace, base: Any, options: Any, found: Sequence[Any]) -> int:
    from dpverify.verify.changes._changed_specs import diff_changed_specs

    diffs = diff_changed_specs(found, base, options)
    compared = sum(d.status == "compared" for d in diffs)
    head = (
        f"dpverify check --base {base.revision} ({base.commit[:12]}): {len(diffs)} spec(s), {compared} with changed "
        f"sampler code compared on their cases; the working tree and {base.revision} both read from {base.root}"
    )
    return _report(args, diffs, base, options, head, command=head.split(" (", 1)[0])


def run_check_base(args: argparse.Namespace, found: Sequence[Any]) -> int:
    """``dpverify check --base REV``: every found spec whose sampler's code changed since REV,
    compared with its old version on its cases."""
    from dpverify.verify.changes._base_revision import BaseRevision

    if args.junit or args.json:
        option = "--junit" if args.junit else "--json"
        raise InvalidArgument(
            f"check --base writes no {option} document of check's; for JSON run "
            f"dpverify diff --base {elided(args.base, 60)} --json (the same comparison, schema dpverify.diff/1)."
        )
    with BaseRevision(args.base) as base:
        return _changed(args, base, _options(args, 0), found)
