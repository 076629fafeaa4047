"""The exact privacy loss of the textbook float Laplace mechanism, and Mironov's attack on it.

Mechanism (``samplers/laplace_float_unsafe.py``; paper 002, Figure 21.2; paper 000, §1): for
a ``k``-bit draw ``j`` in ``1 .. M``, ``M = 2^k - 1``, ``u = j / 2^k``, it releases
``f_q(j) = q + (-b * sgn(u - 1/2) * ln(1 - 2|u - 1/2|))`` in IEEE doubles.  Over the reals it
is ``(|q - q'| / b)``-DP for inputs ``q, q'``; in doubles it is not DP at all.

Two exact arguments, both on the real code:

- **Enumeration at ``k`` bits** (``2 <= k <= 24``): every draw of both inputs is run
  (:func:`dpverify.verify.precision._float_exact.float_pmf`), so ``P(y | q) = #{j : f_q(j) = y} / M`` exactly and
  ``epsilon_k = max_y |ln P(y|q) - ln P(y|q')|`` is exact; it is infinite when some ``y`` has
  ``P(y|q) > 0 = P(y|q')`` (or the reverse), and the witness is that ``y`` with its draw ``j``.
  :func:`first_violation` stops at the first such draw instead of building both PMFs.
- **Reachability at 53 bits** (:func:`dpverify.verify.precision._mironov.mironov_attack`): outputs sampled from
  ``q`` with a seeded source, each decided exactly reachable or not from ``q'`` by monotone
  search (Mironov 2012, "On significance of the least significant bits for differential
  privacy", CCS '12).  An unreachable one reveals the input with certainty.

Why ``k <= 24`` for the enumeration: it runs ``2^k - 1`` draws per input in pure Python and
keeps both PMFs in dicts.  At ``k = 20`` that is about 3 s and 0.4 GB peak (2-core machine);
each extra bit doubles both, so ``k = 24`` needs roughly a minute and 6 GB.  Full precision is
covered by the reachability search instead, which needs ``O(k)`` draws per output.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dpverify.samplers._errors import InvalidArgument
from dpverify.samplers.laplace_float_unsafe import mechanism_unsafe
from dpverify.verify.engine._arguments import need_seed, shown
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text, json_number, json_value
from dpverify.verify.precision._float_exact import float_pmf, float_privacy
from dpverify.verify.precision._mironov import float_parameter, mironov_attack, scale_parameter

__all__ = ["LAPLACE_FLOAT_ATTACK_SCHEMA", "FirstViolation", "attack_text", "first_violation", "laplace_float_attack"]

#: The ``schema`` field of :func:`laplace_float_attack`'s document (``dpverify attack laplace-float --json``).
LAPLACE_FLOAT_ATTACK_SCHEMA = "dpverify.attack-laplace-float/1"

MAX_ENUMERATION_BITS = 24


def _enumeration_bits(bits: object) -> int:
    if isinstance(bits, bool) or not isinstance(bits, int) or not 2 <= bits <= MAX_ENUMERATION_BITS:
        raise InvalidArgument(
            f"bits must be an integer with 2 <= bits <= {MAX_ENUMERATION_BITS}; got bits={shown(bits)}. "
            f"The exact enumeration runs 2^bits - 1 draws per input; 53-bit outputs are decided "
            f"by the reachability search instead."
        )
    return bits


@dataclass(frozen=True, slots=True)
class FirstViolation:
    """The first draw found whose output one input can produce and the other cannot.

    ``output = f_{from_input}(j)`` and no draw of the other input gives it, so
    ``P(output | from_input) > 0 = P(output | other)``: infinite privacy loss at ``k`` bits.
    ``enumerated`` draws of the other input were run (all ``2^k - 1`` of them) and ``scanned``
    draws of ``from_input`` before the witness; ``seconds`` is the wall-clock time of both.
    """

    output: float
    j: int
    from_input: str
    k: int
    enumerated: int
    scanned: int
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return {
            "output": json_value(self.output),
            "output_hex": self.output.hex(),
            "j": self.j,
            "from_input": self.from_input,
            "bits": self.k,
            "enumerated": self.enumerated,
            "scanned": self.scanned,
            "seconds": self.seconds,
        }


def first_violation(q: float, q_prime: float, b: float, k: int) -> FirstViolation | None:
    """Enumerate ``q'`` once into a set, then run draws of ``q`` until one leaves the set.

    Exact, with no assumption on libm: both sides are the real code run on every draw it
    needs.  If every output of ``q`` is also one of ``q'``, the reverse direction is checked
    from the outputs of ``q`` collected on the way; ``None`` means the two supports are equal
    at ``k`` bits (the loss is then finite: use :func:`laplace_float_attack` for its value).
    """
    q_ = float_parameter("q", q)
    q2 = float_parameter("q_prime", q_prime)
    b_ = scale_parameter(b)
    k_ = _enumeration_bits(k)
    draws = range(1, 1 << k_)
    start = time.perf_counter()
    of_q_prime = {mechanism_unsafe(q2, b_, j, k_) for j in draws}
    of_q: set[float] = set()
    for j in draws:
        y = mechanism_unsafe(q_, b_, j, k_)
        if y not in of_q_prime:
            return FirstViolation(y, j, "q", k_, len(draws), j, time.perf_counter() - start)
        of_q.add(y)
    for j in draws:  # every output of q is one of q'; is some output of q' impossible from q?
        y = mechanism_unsafe(q2, b_, j, k_)
        if y not in of_q:
            return FirstViolation(y, j, "q_prime", k_, 2 * len(draws), len(draws) + j, time.perf_counter() - start)
    return None


def laplace_float_attack(
    scale: float,
    q: float,
    q_prime: float,
    bits: int,
    *,
    samples: int = 1000,
    seed: int | None = None,
) -> dict[str, Any]:
    """The JSON document of ``dpverify attack laplace-float``.

    ``epsilon`` is exact at ``bits`` (a float, or ``"Infinity"``), with the witness output
    (as a float and as ``float.hex``), the draw ``j`` producing it from ``from_input`` and the
    exact draw counts from both inputs; ``ratio`` is the exact worst ratio ``"num/den"`` or
    ``null`` when infinite.  ``reachability`` is Mironov's attack at 53 bits on ``samples``
    outputs of ``q`` (``null`` when ``samples == 0``); ``seed=None`` draws a fresh seed.
    """
    b_ = scale_parameter(scale)
    q_ = float_parameter("q", q)
    q2 = float_parameter("q_prime", q_prime)
    k = _enumeration_bits(bits)
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 0:
        raise InvalidArgument(f"samples must be an integer >= 0; got samples={shown(samples)}.")
    seed_ = need_seed(seed)

    draws = range(1, 1 << k)
    start = time.perf_counter()
    pmf_q = float_pmf(lambda j: mechanism_unsafe(q_, b_, j, k), draws)
    pmf_q2 = float_pmf(lambda j: mechanism_unsafe(q2, b_, j, k), draws)
    loss = float_privacy(pmf_q, pmf_q2)
    enumeration_seconds = time.perf_counter() - start

    output = float(loss.output)  # type: ignore[arg-type]  # outputs of this mechanism are floats
    c_q, c_q2 = loss.counts
    reachability: dict[str, Any] | None = None
    reach_seconds = 0.0
    if samples > 0:
        start = time.perf_counter()
        report = mironov_attack(q_, q2, b_, samples, seed_, 53)
        reach_seconds = time.perf_counter() - start
        reachability = report.to_json()
        reachability["seconds"] = reach_seconds
    return {
        "schema": LAPLACE_FLOAT_ATTACK_SCHEMA,
        "mechanism": "laplace-float",
        "scale": b_,
        "q": q_,
        "q_prime": q2,
        "bits": k,
        "draws": len(draws),
        "ideal_epsilon": abs(q_ - q2) / b_,
        "epsilon": json_number(loss.epsilon),
        "ratio": None if loss.ratio is None else fraction_text(loss.ratio),
        "witness": {
            "output": json_value(output),
            "output_hex": output.hex(),
            "j": loss.draw,
            "from_input": loss.from_input,
            "counts": {"q": c_q, "q_prime": c_q2},
            "p": fraction_text(Fraction(c_q, len(draws))),
            "p_prime": fraction_text(Fraction(c_q2, len(draws))),
        },
        "enumeration_seconds": enumeration_seconds,
        "reachability": reachability,
        "seed": seed_,
        "replay": (
            f"dpverify attack laplace-float --scale {b_!r} --q {q_!r} --q-prime {q2!r} --bits {k} "
            f"--samples {samples} --seed {seed_}"
        ),
    }


def attack_text(document: dict[str, Any]) -> str:
    """The human-readable report of :func:`laplace_float_attack`'s document."""
    w = document["witness"]
    epsilon = document["epsilon"]
    lines = [
        f"textbook float Laplace, scale={document['scale']!r}, q={document['q']!r}, q'={document['q_prime']!r}",
        f"  ideal mechanism: epsilon = |q - q'|/scale = {document['ideal_epsilon']!r}",
        f"  exact at {document['bits']} bits ({document['draws']} draws per input, "
        f"{document['enumeration_seconds']:.2f} s): epsilon = {epsilon}"
        + ("" if document["ratio"] is None else f" (ratio {document['ratio']})"),
    ]
    source = "q" if w["from_input"] == "q" else "q'"
    lines.append(
        f"  witness: output {w['output']!r} ({w['output_hex']}) from {source} at draw j={w['j']}; "
        f"draw counts q: {w['counts']['q']}, q': {w['counts']['q_prime']}"
    )
    reach = document["reachability"]
    if reach is None:
        lines.append("  reachability at 53 bits: skipped (samples = 0)")
    else:
        lines.append(
            f"  reachability at 53 bits: {reach['revealing']} of {reach['samples']} outputs of q "
            f"({reach['fraction_float']:.3f}) cannot come from q' and reveal the input with certainty; "
            f"P >= {reach['lower_bound']['value']:.3f} at alpha={reach['lower_bound']['alpha']:g} "
            f"(seed {reach['seed']}, {reach['seconds']:.2f} s)"
        )
        for example in reach["examples"][:3]:
            lines.append(
                f"    output {example['output']!r} ({example['output_hex']}) from draw j={example['j']}: "
                f"P(.|q) = {example['p']}, P(.|q') = 0"
            )
    lines.append(f"  replay: {document['replay']}")
    return "\n".join(lines)


def check_float_laplace(q: float, q_prime: float, b: float, k: int) -> CheckResult:
    """The textbook float Laplace's exact privacy at ``k`` bits against its ideal ``|q - q'|/b``.

    ``violated`` with the output and draw when the exact loss exceeds the ideal (infinite when
    an output of one input is impossible from the other); ``proved`` otherwise.
    """
    b_, q_, q2, k_ = (
        scale_parameter(b),
        float_parameter("q", q),
        float_parameter("q_prime", q_prime),
        _enumeration_bits(k),
    )
    draws = range(1, 1 << k_)
    loss = float_privacy(
        float_pmf(lambda j: mechanism_unsafe(q_, b_, j, k_), draws),
        float_pmf(lambda j: mechanism_unsafe(q2, b_, j, k_), draws),
    )
    ideal = abs(q_ - q2) / b_
    output = float(loss.output)  # type: ignore[arg-type]  # outputs of this mechanism are floats
    evidence = {
        "bits": k_,
        "epsilon": json_number(loss.epsilon),
        "ideal_epsilon": ideal,
        "witness": {
            "output": output,
            "output_hex": output.hex(),
            "j": loss.draw,
            "from_input": loss.from_input,
            "counts": list(loss.counts),
        },
    }
    if loss.ratio is not None and loss.epsilon <= ideal:
        return CheckResult(
            "privacy",
            Verdict.PROVED,
            f"exact loss {loss.epsilon:.6g} <= ideal {ideal:.6g} at {k_} bits",
            evidence=evidence,
        )
    what = "infinite privacy loss" if loss.ratio is None else f"exact loss {loss.epsilon:.6g} > ideal {ideal:.6g}"
    return CheckResult(
        "privacy",
        Verdict.VIOLATED,
        f"{what} at {k_} bits: output {output!r} ({output.hex()}) comes from draw j={loss.draw} "
        f"of {loss.from_input} with counts q:{loss.counts[0]} vs q':{loss.counts[1]}",
        evidence=evidence,
    )
