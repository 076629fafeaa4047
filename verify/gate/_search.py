"""Search a spec's parameter domain beyond its listed cases, with Hypothesis.

A spec's ``cases`` are the parameter sets its author thought of; the search draws more.  Each
drawn set is checked as a case expected to prove, with the exact checks only (the code's exact
PMF against the closed form, the claim on the exact table, the spec's declared ``checks``;
never the statistical sampling), so a verdict found here is exact, not a p-value.  A set fails
when that case is not met: a soundness or claim check did not prove, or the spec is broken
there (outcome ``error``: a sampler that raises on valid parameters, a PMF that does not sum
to 1, ...).

What is drawn: ``spec.draw`` when the spec gives one (a strategy, or a zero-argument callable
returning one), else each parameter from its domain's search window
(:meth:`~dpverify.specs.Rational.strategy`, :meth:`~dpverify.specs.Integer.strategy`).  Sets
that :meth:`~dpverify.specs.Spec.bind` refuses are skipped, since a domain's constraints can
relate parameters the window draws independently.

Shrinking: after the first failing set, Hypothesis keeps trying simpler ones (smaller
integers, simpler fractions, earlier choices) that still fail, and reports the simplest it
reached, so the counterexample is small enough to read and rerun.

Replay: the search is a pure function of the spec, ``seed`` and ``max_examples`` (Hypothesis is
seeded with ``random.Random(seed)`` and uses no example database), so the same call finds the
same parameters; the failing set alone reruns as
``run_case(spec, Case(result.parameters), seed=seed, samples=1, statistics=False)``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from dpverify.specs._api import Case, Spec, SpecError
from dpverify.specs._fields import check_fields
from dpverify.verify.engine._arguments import MAX_SEED, need_count, need_instance, shown
from dpverify.verify.gate._spec_run import ERROR, CaseOutcome, run_case

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["DEFAULT_EXAMPLES", "SearchResult", "parameter_strategy", "search_spec"]

#: Parameter sets a search checks when not told otherwise (each runs the exact checks).
DEFAULT_EXAMPLES = 25


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What a search of one spec found.

    ``verdict`` is ``"proved"`` when none of the ``examples`` parameter sets checked failed
    (proved for those sets only, not for the whole domain) and ``"violated"`` when one did;
    then ``parameters`` is the shrunk failing set and ``outcome`` the exact checks' outcome
    on it (``outcome.outcome == "error"`` when the spec is broken there).  ``examples`` counts
    every set checked, shrinking included.
    """

    spec: Spec
    verdict: str
    seed: int
    max_examples: int
    examples: int
    parameters: Mapping[str, Any] | None = None
    outcome: CaseOutcome | None = None

    def __post_init__(self) -> None:
        check_fields(self)

    @property
    def replay(self) -> str:
        """The Python call that repeats this search."""
        return f"search_spec(<spec {self.spec.name!r}>, seed={self.seed}, max_examples={self.max_examples})"

    @property
    def broken(self) -> bool:
        """True when the failing set breaks the spec rather than its claim or its code."""
        return self.outcome is not None and self.outcome.outcome == ERROR

    def summary(self) -> str:
        """One line: the verdict, and for a failure the parameters and the first problem."""
        head = f"spec {self.spec.name!r}: search (seed {self.seed})"
        if self.outcome is None:
            return f"{head} found no failing parameter set among {self.examples} checked"
        where = ", ".join(f"{k}={v}" for k, v in (self.parameters or {}).items()) or "(no parameters)"
        first = self.outcome.error or (self.outcome.problems[0] if self.outcome.problems else self.outcome.outcome)
        kind = "broken spec" if self.broken else "fails"
        return f"{head}: {kind} at {where} ({self.examples} sets checked): {first}"


def parameter_strategy(spec: Spec) -> SearchStrategy[dict[str, Any]]:
    """The parameter sets a search of ``spec`` draws, each validated by ``spec.bind`` (so in
    declaration order, as ints and Fractions); sets it refuses are filtered out."""
    from hypothesis import strategies as st
    from hypothesis.strategies import SearchStrategy

    need_instance("spec", spec, Spec, "a dpverify.specs.Spec")
    draw = spec.draw
    if draw is None:
        base = st.fixed_dictionaries({name: domain.strategy() for name, domain in spec.parameters.items()})
    else:
        if not isinstance(draw, SearchStrategy) and callable(draw):
            try:
                draw = draw()
            except Exception as error:  # noqa: BLE001 - the spec's own callable; its failure is the spec's
                raise SpecError(f"spec {shown(spec.name)}: draw() raised {type(error).__name__}: {error}") from None
        if not isinstance(draw, SearchStrategy):
            raise SpecError(
                f"spec {shown(spec.name)}: draw must be a Hypothesis strategy of parameter dicts, or a "
                f"callable returning one; got {shown(draw)}."
            )
        base = draw

    def bound(p: Any) -> dict[str, Any] | None:
        try:
            return spec.bind(p, where="a drawn parameter set") if isinstance(p, Mapping) else None
        except SpecError:
            return None

    # filter drops the Nones, which the mapped strategy's type still includes
    return cast("SearchStrategy[dict[str, Any]]", base.map(bound).filter(lambda p: p is not None))


def search_spec(spec: Spec, *, seed: int, max_examples: int = DEFAULT_EXAMPLES) -> SearchResult:
    """Check up to ``max_examples`` drawn parameter sets of ``spec`` with its exact checks, and
    shrink the first failing one (see the module docstring).  A draw the domain always refuses
    is a :class:`~dpverify.specs.SpecError`.

    A die that is fair only up to 2 faces, against a spec that says fair for every ``n``:

    >>> from fractions import Fraction
    >>> from dpverify.specs import Case, Integer, SamplesPmf, Spec
    >>> die = Spec("die", lambda n, rng: rng.randbelow(min(n, 2)), {"n": Integer(1, 6)}, [Case({"n": 1})],
    ...            SamplesPmf(), pmf=lambda p: {i: Fraction(1, p["n"]) for i in range(p["n"])})
    >>> result = search_spec(die, seed=1)
    >>> result.verdict, dict(result.parameters)
    ('violated', {'n': 3})
    >>> print(result.outcome.problems[0])
    expected exactness proved, got violated: code and spec differ at q=0, output=0: code 1/2 vs spec 1/3
    """
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis.errors import NoSuchExample, Unsatisfiable

    need_instance("spec", spec, Spec, "a dpverify.specs.Spec")
    seed = need_count("seed", seed, low=0, high=MAX_SEED)
    max_examples = need_count("max_examples", max_examples, low=1)
    checked = 0

    def fails(p: dict[str, Any]) -> bool:
        nonlocal checked
        checked += 1
        return not run_case(spec, Case(p), seed=seed, samples=1, statistics=False).met

    config = settings(
        max_examples=max_examples,
        database=None,
        deadline=None,
        derandomize=False,  # the seed below decides, under any Hypothesis profile
        phases=(Phase.generate, Phase.shrink),
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    try:
        found = find(parameter_strategy(spec), fails, settings=config, random=random.Random(seed))
    except NoSuchExample:
        return SearchResult(spec, "proved", seed, max_examples, checked)
    except Unsatisfiable:
        raise SpecError(
            f"spec {shown(spec.name)}: the search drew no parameter set the declared domains accept; "
            "check draw= and each domain's search window."
        ) from None
    outcome = run_case(spec, Case(found), seed=seed, samples=1, statistics=False)
    return SearchResult(spec, "violated", seed, max_examples, checked, found, outcome)
