"""``dpverify audit --black-box SPEC``: the command line over :mod:`dpverify.verify.published._blackbox`.

Kept apart from the ``audit`` command (``_audit``) so that it only hands over: it prints one line per
test with the bound, the seed, the draws and the time, writes ``DIR/blackbox.json``
(``dpverify.blackbox/1``) and, with ``--json``, the same document where ``--json`` says.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from fractions import Fraction

from dpverify.samplers import DpverifyError, as_open_unit_interval, fresh_seed
from dpverify.samplers._rational import shown
from dpverify.verify.cli._common import parameter_pairs
from dpverify.verify.published._blackbox import BLACKBOX_SCHEMA, audit_black_box, resolve_black_box
from dpverify.verify.published._blackbox_distribution import DEFAULT_BETA
from dpverify.verify.published._blackbox_privacy import DEFAULT_ALPHA
from dpverify.verify.reports._output import emit_json, human_stream

__all__ = ["audit_black_box_command"]


def audit_black_box_command(args: argparse.Namespace) -> int:
    """Run the black-box audit the parsed ``dpverify audit --black-box`` arguments ask for."""
    from dpverify.verify.reports._audit import parameters_case

    if os.path.exists(args.out) and not os.path.isdir(args.out):
        raise DpverifyError(f"--out must be a directory; got --out={shown(args.out)}, which is a file.")
    alpha = DEFAULT_ALPHA if args.confidence is None else 1 - as_open_unit_interval("--confidence", args.confidence)
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # a project's own modules, as --spec-module and module:attribute name them
    spec, origin = resolve_black_box(args.spec, args.spec_module or ())
    pairs = parameter_pairs(args.parameters)
    cases = [parameters_case(spec, pairs)] if pairs else list(spec.cases)
    seed = fresh_seed() if args.seed is None else args.seed
    human = human_stream(args)
    parameters = "".join(f" --{name} {value}" for name, value in pairs)
    module = "".join(f" --spec-module {m}" for m in args.spec_module or ())
    confidence = "" if args.confidence is None else f" --confidence {args.confidence}"
    command = (
        f"dpverify audit --black-box {args.spec}{parameters}{module} --seed {seed} --samples {args.samples}"
        f"{confidence} --time-limit {args.time_limit} --out {args.out}"
    )
    print(
        f"dpverify audit --black-box: {spec.name} from {origin}, {len(cases)} case(s), seed {seed}, "
        f"{args.samples} draws per input, confidence {_text(1 - alpha)}",
        file=human,
    )
    print(
        f"  privacy: an output event is chosen on half of each input's draws and tested on the other half with "
        f"exact Clopper-Pearson bounds: a sampler that meets its claim is reported violated with probability "
        f"<= {_text(alpha)}; distribution: DKW-Massart and a held-out atom test at rate <= {_text(DEFAULT_BETA)}",
        file=human,
    )
    document = audit_black_box(
        spec, origin, cases, seed=seed, samples=args.samples, alpha=alpha, time_limit=args.time_limit, command=command
    )
    for case in document["cases"]:
        mark = "ok  " if case["met"] else "FAIL"
        print(
            f"{mark} {spec.name}/{case['label']}: expect {case['expect']}, got {case['outcome']} "
            f"({case['seconds']:.1f} s)",
            file=human,
        )
        for check in case["checks"]:
            print(f"       {check['check']}: {check['verdict']}: {check['summary']}", file=human)
        for note in case["notes"]:
            print(f"       {note}", file=human)
    print(
        f"{document['verdict']['summary']}: {'PASS' if document['verdict']['exit_code'] == 0 else 'FAIL'}", file=human
    )
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "blackbox.json")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(document, indent=2) + "\n")
    print(f"report: {path}; replay: {command}", file=human)
    args.json_schema = BLACKBOX_SCHEMA  # the audit's --json carries this document in black-box mode
    emit_json(args, document)
    return int(document["verdict"]["exit_code"])


def _text(value: Fraction) -> str:
    return str(value)
