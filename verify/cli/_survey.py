"""``dpverify survey``: the noise primitives of the Python DP libraries, each audited unmodified in
an environment of its own (:mod:`dpverify.verify.survey`), into ``DIR/ecosystem.md`` and
``DIR/ecosystem.json``."""

from __future__ import annotations

import argparse
import os
import shlex
from pathlib import Path
from typing import Any

from dpverify.samplers import DpverifyError
from dpverify.samplers._rational import shown
from dpverify.verify.cli._common import MAX_SAMPLES, MAX_SEED, MAX_TIMEOUT, _count
from dpverify.verify.reports._output import add_json_option, emit_json, human_stream
from dpverify.verify.survey._libraries import LIBRARIES, SURVEY_SCHEMA

__all__ = ["add_survey_parser"]


def _survey(args: argparse.Namespace) -> int:
    import json

    from dpverify.verify.survey._environments import default_root
    from dpverify.verify.survey._primitive import Budget
    from dpverify.verify.survey._survey import markdown, run_survey

    if os.path.exists(args.out) and not os.path.isdir(args.out):
        raise DpverifyError(f"--out must be a directory; got --out={shown(args.out)}, which is a file.")
    root = Path(args.venvs) if args.venvs else default_root()
    human = human_stream(args)
    words = [
        "dpverify",
        "survey",
        *(w for name in args.library or () for w in ("--library", name)),
        "--seed",
        str(args.seed),
        "--samples",
        str(args.samples),
        "--time-limit",
        str(args.time_limit),
    ]
    command = " ".join(shlex.quote(w) for w in words + (["--here"] if args.here else []))
    print(
        f"dpverify survey: {', '.join(args.library or LIBRARIES)}; "
        f"{'in this environment' if args.here else f'one environment per library under {root}'}",
        file=human,
    )
    document = run_survey(
        args.library or (),
        Budget(args.seed, args.samples, args.time_limit),
        here=args.here,
        root=root,
        command=command,
        progress=lambda line: print(f"  {line}", file=human, flush=True),
    )
    for entry in document["libraries"]:
        if entry["status"] == "skipped":
            print(f"skip {entry['name']}: {entry['reason']}", file=human)
        for row in entry["rows"]:
            print(
                f"{row['verdict']:<12} {entry['name']} {entry['version']}: {row['primitive']} ({row['method']}, "
                f"{row['seconds']:.1f} s): {row['evidence'][:200]}",
                file=human,
            )
    os.makedirs(args.out, exist_ok=True)
    Path(args.out, "ecosystem.md").write_text(markdown(document), encoding="utf-8")
    Path(args.out, "ecosystem.json").write_text(json.dumps(document, indent=1, default=str) + "\n", encoding="utf-8")
    print(f"wrote {Path(args.out, 'ecosystem.md')} and {Path(args.out, 'ecosystem.json')}", file=human)
    emit_json(args, document)
    return 0


def _library(value: str) -> str:
    if value not in LIBRARIES:
        raise argparse.ArgumentTypeError(f"must be one of {', '.join(LIBRARIES)}; got {value!r}")
    return value


def add_survey_parser(commands: Any) -> None:
    """Declare ``dpverify survey`` on the CLI's subcommands; its handler is :func:`_survey`."""
    survey = commands.add_parser("survey", help="audit the noise primitives of the Python DP libraries into one table")
    survey.add_argument(
        "--library",
        action="append",
        type=_library,
        metavar="NAME",
        help=f"only this library (repeatable): {', '.join(LIBRARIES)} (default: all)",
    )
    survey.add_argument(
        "--out",
        default="dpverify-survey",
        metavar="DIR",
        help="write DIR/ecosystem.md and DIR/ecosystem.json (default dpverify-survey; the project's own table is "
        "docs/ecosystem.md, regenerated with --out docs)",
    )
    survey.add_argument(
        "--here",
        action="store_true",
        help="audit the libraries installed in this environment instead of one environment each",
    )
    survey.add_argument(
        "--venvs", metavar="DIR", help="where the libraries' environments live (default ~/.cache/dpverify/survey)"
    )
    survey.add_argument(
        "--seed", type=_count("seed", 0, MAX_SEED), default=0, help="seed of the black boxes' draws (default 0)"
    )
    survey.add_argument(
        "--samples",
        type=_count("samples", 4, MAX_SAMPLES),
        default=20_000,
        help="draws per input of a black box (default 20000)",
    )
    survey.add_argument(
        "--time-limit",
        type=_count("time-limit", 1, MAX_TIMEOUT),
        default=300,
        metavar="SECONDS",
        help="seconds one audit may take (default 300)",
    )
    add_json_option(survey, "the survey document", schema=SURVEY_SCHEMA)
    survey.set_defaults(run=_survey)
