"""``dpverify pmf gtm``: the exact output PMF of one GTM instance, from the spec's closed form
or derived from the sampler code."""

from __future__ import annotations

import argparse
from collections.abc import Hashable
from fractions import Fraction
from typing import Any

from dpverify.verify.cli._common import _describe, _gtm_arguments, _gtm_spec, _Parser, _usage
from dpverify.verify.engine._exactness import code_distribution
from dpverify.verify.engine._results import fraction_text
from dpverify.verify.engine._text import short_rational
from dpverify.verify.reports._output import add_json_option, emit_json, human_stream

__all__ = ["PMF_GTM_SCHEMA", "add_pmf_parser"]


#: The ``schema`` field of ``dpverify pmf gtm --json``.
PMF_GTM_SCHEMA = "dpverify.pmf-gtm/1"


def _pmf(args: argparse.Namespace) -> int:
    spec = _gtm_spec(args)
    q = spec.check_input(args.q)
    masses: dict[Hashable, Fraction]
    if args.from_code:
        found = code_distribution(spec, q)
        masses = {x: found.masses.get(x, Fraction(0)) for x in spec.outputs()}
        source = f"sampler code ({found.method}, {found.executions} executions)"
    else:
        masses = spec.pmf(q).as_dict()
        source = "spec closed form"
    pmf = [fraction_text(masses[x]) for x in spec.outputs()]
    human = human_stream(args)
    print(f"GTM {_describe(spec)}, q={q}: exact PMF from the {source}", file=human)
    for x in spec.outputs():
        print(f"  P({x}) = {short_rational(masses[x])}", file=human)
    emit_json(
        args,
        {
            "schema": PMF_GTM_SCHEMA,
            "mechanism": spec.name,
            "parameters": spec.parameters(),
            "q": q,
            "source": source,
            "pmf": pmf,
        },
    )
    return 0


def add_pmf_parser(commands: Any) -> None:
    """Declare ``dpverify pmf`` on the CLI's subcommands; its handler is :func:`_pmf`."""
    pmf = commands.add_parser("pmf", help="print the exact output PMF of one instance")
    pmf_mechanisms = pmf.add_subparsers(dest="mechanism", parser_class=_Parser, metavar="MECHANISM")
    pmf.set_defaults(run=_usage(pmf))
    pmf_gtm = pmf_mechanisms.add_parser("gtm", help="Geometric Truncated Mechanism")
    _gtm_arguments(pmf_gtm, with_q=True)
    pmf_gtm.add_argument("--from-code", action="store_true", help="derive it from the sampler code, not the spec")
    add_json_option(pmf_gtm, "the PMF", schema=PMF_GTM_SCHEMA)
    pmf_gtm.set_defaults(run=_pmf)
