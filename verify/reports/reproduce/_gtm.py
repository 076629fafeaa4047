"""Paper 004 recomputed: Amorim, Gaboardi, Rindisbacher, "Verified Differential Privacy for
Finite Computers" (the Geometric Truncated Mechanism sampled by inverse transform).

What the paper states, and how each is recomputed (exact rationals throughout):

* §2 ``gtpmf``: a PMF (sums to 1), and the ideal mechanism is alpha-DP
  (``alpha <= gtpmf(q, x)/gtpmf(q', x) <= 1/alpha`` for ``|q - q'| <= 1``).  The piecewise
  definition is transcribed here a second time (:func:`_gtpmf`, read in the order the paper
  lists its cases) and summed; the tightest ratio of the ideal table comes from
  :func:`dpverify.verify.tightest_alpha`; the statement for all parameters is the Z3 proof
  ``dpverify.proofs.gtm_ideal_ratio``, discharged again.
* §5 the support condition ``T >= (1+alpha)/((1-alpha) alpha^n)``, "the inverse of a value
  slightly smaller than any probability returned by the PMF": the smallest ideal probability,
  every output's probability at the bound, and the smallest ``T`` with full support (a scan).
* Theorem 6.1 (``|gtm - gtpmf| <= 1/T``), 6.2 (``alpha'``) and 7.1 (``alpha = 1/D``,
  ``T = (D+1) D^n`` is exact) on instances, with the sampler's own code enumerated
  (:func:`dpverify.verify.code_distribution`, bisection over the draw for ``T = 10^100``), and
  for all parameters by the proofs in ``proofs/``.
* §6's prose before Theorem 6.2 and the conditions of 6.2 and 7.1, read against the exact tables.
"""

from __future__ import annotations

import math
from fractions import Fraction
from types import ModuleType

from dpverify.specs import GtmSpec
from dpverify.specs._interval_tools import decimal_text
from dpverify.verify.engine._results import Verdict, fraction_text
from dpverify.verify.engine._text import short_rational
from dpverify.verify.privacy._ratio import tightest_alpha
from dpverify.verify.reports.reproduce._rows import Options, Paper, Part, Plan, Row, Task

__all__ = ["PAPER"]

_WHERE_PMF = "§2, gtpmf"


def _gtpmf(alpha: Fraction, n: int, q: int, x: int) -> Fraction:
    """§2's ``gtpmf(q, output)``, its cases tried in the order the paper lists them."""
    if x > n:
        return Fraction(0)
    if x == 0:
        return alpha**q / (1 + alpha)
    if x == n:
        return alpha ** (n - q) / (1 + alpha)
    return (1 - alpha) / (1 + alpha) * alpha ** abs(x - q)


def _instance(alpha: str, n: int, T: object = 1) -> str:
    return f"alpha={alpha}, n={n}" + ("" if T == 1 else f", T={T}")


def _privacy_command(alpha: str, n: int, T: object) -> str:
    return f'dpverify privacy gtm --alpha {alpha} --n {n} --T "{T}"'


# --- §2 -------------------------------------------------------------------------------------------


def pmf_rows() -> Part:
    """gtpmf sums to 1 for ``n >= 1`` (and equals the spec's closed form); not for ``n = 0``."""
    instances = (("1/3", 5), ("2/5", 6), ("1/2", 1), ("9/10", 40))
    for alpha_text, n in instances:
        alpha = Fraction(alpha_text)
        spec = GtmSpec.create(alpha, n, 1)
        for q in range(n + 1):
            row = [_gtpmf(alpha, n, q, x) for x in range(n + 1)]
            if sum(row) != 1 or spec.ideal_pmf(q).as_dict() != dict(enumerate(row)):
                return Part(
                    (
                        Row(
                            "004/gtpmf-sums-to-1",
                            "gtpmf(q, .) is a PMF",
                            _WHERE_PMF,
                            "a distribution on [0, n]",
                            f"{_instance(alpha_text, n)}, q={q}: sums to {fraction_text(sum(row))}",
                            "no",
                            reason="the transcription of §2 and dpverify.specs.gtm disagree or do not sum to 1",
                        ),
                    )
                )
    summed = "; ".join(_instance(a, n) for a, n in instances)
    alpha = Fraction(1, 3)
    at_zero = _gtpmf(alpha, 0, 0, 0)
    return Part(
        (
            Row(
                "004/gtpmf-sums-to-1",
                "gtpmf(q, .) sums to 1 for every q",
                _WHERE_PMF,
                "a probability distribution",
                f"exactly 1 for every q at {summed}; equal to dpverify.specs.GtmSpec.ideal_pmf",
                "yes",
            ),
            Row(
                "004/gtpmf-n=0",
                "gtpmf when n = 0",
                _WHERE_PMF,
                "q bounded to [0, n]; the cases output = 0 and output = n",
                f"n=0, alpha=1/3: gtpmf(0, 0) = alpha^0/(1+alpha) = {fraction_text(at_zero)}, total mass "
                f"{fraction_text(at_zero)}",
                "flagged",
                reason="false without the unstated condition n >= 1: at n = 0 the cases 'output = 0' and 'output = n' "
                "coincide and either gives 1/(1+alpha) < 1, so gtpmf is not a distribution (dpverify's GtmSpec "
                "requires n >= 1)",
            ),
        )
    )


def ideal_ratio_rows() -> Part:
    """The ideal GTM's tightest ratio is exactly alpha on instances."""
    found = []
    for alpha_text, n in (("1/3", 5), ("2/5", 6), ("1/2", 1)):
        spec = GtmSpec.create(alpha_text, n, 1)
        loss = tightest_alpha({q: spec.ideal_pmf(q) for q in spec.inputs()}, spec.neighbours())
        # no witness only where no pair is compared (ratio 1), which differs from every alpha here
        if loss.alpha != spec.alpha or loss.witness is None:
            return Part(
                (
                    Row(
                        "004/ideal-alpha-dp",
                        "ideal GTM is alpha-DP",
                        "§2",
                        "alpha <= ratio <= 1/alpha",
                        f"{_instance(alpha_text, n)}: tightest ratio {fraction_text(loss.alpha)}",
                        "no",
                        reason="the tightest ratio of the ideal table differs from alpha",
                    ),
                )
            )
        w = loss.witness
        found.append(f"{_instance(alpha_text, n)}: {fraction_text(loss.alpha)} (q={w.q}, q'={w.q_prime}, x={w.output})")
    return Part(
        (
            Row(
                "004/ideal-alpha-dp",
                "tightest ratio of the ideal gtpmf over neighbours",
                "§2",
                "alpha <= gtpmf(q,x)/gtpmf(q',x) <= 1/alpha",
                "exactly alpha: " + "; ".join(found),
                "yes",
                command="python -c 'from dpverify.specs import GtmSpec; from dpverify.verify import tightest_alpha; "
                's = GtmSpec.create("1/3", 5, 1); '
                "print(tightest_alpha({q: s.ideal_pmf(q) for q in s.inputs()}, s.neighbours()).alpha)'",
            ),
        )
    )


def _proof_module(name: str) -> ModuleType:
    # proofs/ builds on verify/; the application reads it lazily, as the CLI does
    from dpverify.proofs import gtm_ideal_ratio, theorem_6_1, theorem_6_2, theorem_7_1

    return {
        "gtm_ideal_ratio": gtm_ideal_ratio,
        "theorem_6_1": theorem_6_1,
        "theorem_6_2": theorem_6_2,
        "theorem_7_1": theorem_7_1,
    }[name]


#: The proof rows: module, row id, quantity, where, the paper's statement.
_PROOFS = {
    "gtm_ideal_ratio": (
        "004/proof/ideal-ratio",
        "the ideal GTM is alpha-DP, for every alpha, n, q, q', x",
        "§2",
        "alpha <= gtpmf(q,x)/gtpmf(q',x) <= 1/alpha",
    ),
    "theorem_6_1": (
        "004/proof/thm-6.1",
        "Theorem 6.1 for all T, alpha, n",
        "Theorem 6.1",
        "mech <= ideal <= mech + 1/T or ideal <= mech <= ideal + 1/T",
    ),
    "theorem_6_2": (
        "004/proof/thm-6.2",
        "Theorem 6.2 for all T >= 1/D, alpha, n",
        "Theorem 6.2",
        "alpha' <= gtm(q,x)/gtm(q',x) <= 1/alpha'",
    ),
    "theorem_7_1": (
        "004/proof/thm-7.1",
        "Theorem 7.1 for every D >= 2 and n",
        "Theorem 7.1",
        "alpha = 1/D, T = (D+1) D^n preserves alpha-DP",
    ),
}


def proof_row(name: str) -> Part:
    """Discharge one proof module again (Z3, every lemma it rests on included)."""
    row_id, quantity, where, stated = _PROOFS[name]
    module = _proof_module(name)
    result = module.prove()
    obligations = len(getattr(module, "REQUIRES", ())) + len(getattr(module, "THEOREMS", (None,)))
    recomputed = (
        f"{result.verdict.value} by Z3 for all parameters ({obligations} obligations: the theorem and the "
        "lemmas it rests on, each discharged again); certificates in proofs/certificates"
    )
    if result.verdict is Verdict.PROVED:
        note = (
            (
                "proved under T >= 1/D = (1+alpha)/((1-alpha) alpha^n): below it the statement is false (row "
                "'004/thm-6.2/below-support')"
            )
            if name == "theorem_6_2"
            else None
        )
        return Part(
            (
                Row(
                    row_id,
                    quantity,
                    where,
                    stated,
                    recomputed,
                    "yes",
                    reason=note,
                    command=_prove_command(name),
                    kind="proof",
                ),
            )
        )
    return Part(
        (
            Row(
                row_id,
                quantity,
                where,
                stated,
                recomputed,
                "no",
                reason=result.summary,
                command=_prove_command(name),
                kind="proof",
            ),
        )
    )


def _prove_command(name: str) -> str:
    return f"python -c 'from dpverify.proofs import {name}; print({name}.prove().summary)'"


# --- §5: the support condition ----------------------------------------------------------------------


def support_rows(alpha_text: str, n: int) -> Part:
    """§5's bound, the smallest probability it is said to undercut, and the smallest T that works."""
    spec = GtmSpec.create(alpha_text, n, 1)
    alpha, bound = spec.alpha, spec.support_bound()
    T_bound = math.ceil(bound)
    at_bound = GtmSpec.create(alpha, n, T_bound)
    full = all(all(at_bound.pmf(q).weights) for q in at_bound.inputs())
    smallest = min(_gtpmf(alpha, n, q, x) for q in range(n + 1) for x in range(n + 1))

    def has_full_support(T: int) -> bool:
        candidate = GtmSpec.create(alpha, n, T)
        return all(all(candidate.pmf(q).weights) for q in candidate.inputs())

    least = next(T for T in range(1, T_bound + 1) if has_full_support(T))
    monotone = all(has_full_support(T) for T in range(least, T_bound + 1))
    tag = _instance(alpha_text, n)
    return Part(
        (
            Row(
                f"004/support/{tag}",
                f"support condition, {tag}",
                "§5",
                "every output in [0, n] can be sampled when T >= (1+alpha)/((1-alpha) alpha^n)",
                f"bound {short_rational(bound)}; at T = {T_bound} every output has positive probability for every q: "
                f"{'yes' if full else 'NO'}",
                "yes" if full else "no",
                reason=None if full else "an output has probability 0 at the bound",
                command=_privacy_command(alpha_text, n, T_bound),
            ),
            Row(
                f"004/support-smallest-probability/{tag}",
                f"1/bound against the smallest gtpmf, {tag}",
                "§5",
                "the bound is the inverse of a value slightly smaller than any probability of the PMF",
                f"1/bound = {short_rational(1 / bound)} < min gtpmf = {short_rational(smallest)} "
                f"(smaller by the factor {short_rational(smallest * bound)})",
                "yes" if 1 / bound < smallest else "no",
                reason=(
                    f"'slightly' is a factor {short_rational(smallest * bound)} here"
                    if 1 / bound < smallest
                    else "1/bound is not below every probability"
                ),
            ),
            Row(
                f"004/support-least-T/{tag}",
                f"smallest T with full support, {tag}",
                "§5",
                f"T >= {short_rational(bound)} suffices (no necessity stated)",
                f"{least} = 1/min gtpmf; every T from {least} to {T_bound} has full support: "
                f"{'yes' if monotone else 'no'}",
                "yes",
                reason=f"the condition is sufficient, not necessary: T = {least} already has full support",
            ),
        )
    )


# --- Theorem 6.1, 6.2 ------------------------------------------------------------------------------


def theorem_6_1_row(alpha_text: str, n: int, T: str) -> Part:
    """``max T |P_T - gtpmf| < 1`` on an instance; the table from the sampler's code equals the spec's."""
    from dpverify.verify.engine._exactness import code_distribution

    spec = GtmSpec.create(alpha_text, n, T)
    worst, same = Fraction(0), True
    for q in spec.inputs():
        mech = spec.pmf(q).as_dict()
        worst = max(worst, max(abs(mech[x] - _gtpmf(spec.alpha, n, q, x)) * spec.T for x in spec.outputs()))
        code = code_distribution(spec, q)
        same &= {x: code.masses.get(x, Fraction(0)) for x in spec.outputs()} == mech
    tag = _instance(alpha_text, n, T)
    holds = worst < 1 and same
    return Part(
        (
            Row(
                f"004/thm-6.1/{tag}",
                f"Theorem 6.1, {tag}",
                "Theorem 6.1",
                "|gtm(q,x) - gtpmf(q,x)| <= 1/T",
                f"max over q, x of T*|gtm - gtpmf| = {short_rational(worst)} < 1 (strict); gtm from the sampler's "
                f"own code ({'bisection over the draw' if spec.T > 4096 else 'every draw'}) equals P_T: "
                f"{'yes' if same else 'NO'}",
                "yes" if holds else "no",
                reason=None if holds else "the bound or the code's table fails",
                command=f'dpverify pmf gtm --alpha {alpha_text} --n {n} --T "{T}" --q 0 --from-code',
            ),
        )
    )


def theorem_6_2_row(alpha_text: str, n: int, T: str) -> Part:
    """Theorem 6.2's alpha' against the exact tightest ratio, above the support bound."""
    from dpverify.verify.privacy._gtm_privacy import gtm_privacy

    spec = GtmSpec.create(alpha_text, n, T)
    report = gtm_privacy(spec)
    exact, prime = Fraction(report["alpha_exact"]), Fraction(report["thm62_alpha_prime"])
    tag = _instance(alpha_text, n, T)
    holds = prime > 0 and exact >= prime
    if len(fraction_text(exact)) > 40:  # huge T: both are rationals of hundreds of digits, compared exactly
        gap = (
            decimal_text(exact - prime, 3, up=False) if exact > prime else "-" + decimal_text(prime - exact, 3, up=True)
        )
        shown = (
            f"alpha' = {decimal_text(prime, 15, up=False)}...; tightest ratio - alpha' = {gap} (exact rationals of "
            f"{len(fraction_text(prime))} and {len(fraction_text(exact))} characters, compared exactly)"
        )
    else:
        shown = f"alpha' = {fraction_text(prime)} <= tightest ratio {fraction_text(exact)}"
    return Part(
        (
            Row(
                f"004/thm-6.2/{tag}",
                f"Theorem 6.2, {tag}",
                "Theorem 6.2",
                "alpha' <= ratio <= 1/alpha'",
                shown,
                "yes" if holds else "no",
                reason=None if holds else "the exact ratio is below alpha'",
                command=_privacy_command(alpha_text, n, T),
            ),
        )
    )


def theorem_6_2_below_support() -> Part:
    """Below ``T = 1/D`` alpha' is negative and the upper bound 1/alpha' is false."""
    from dpverify.verify.privacy._gtm_privacy import gtm_privacy

    spec = GtmSpec.create("1/2", 5, 10)
    report = gtm_privacy(spec)
    prime = Fraction(report["thm62_alpha_prime"])
    w = report["witness"]
    p, p_prime = Fraction(w["p"]), Fraction(w["p_prime"])
    at_bound = GtmSpec.create("1/2", 5, int(spec.support_bound())).theorem_6_2_alpha_prime()
    false_here = prime < 0 and p / p_prime > 1 / prime
    return Part(
        (
            Row(
                "004/thm-6.2/below-support",
                "Theorem 6.2 below the support bound, alpha=1/2, n=5, T=10",
                "Theorem 6.2",
                "for every T: alpha' <= gtm(q,x)/gtm(q',x) <= 1/alpha'",
                f"alpha' = {fraction_text(prime)}, 1/alpha' = {fraction_text(1 / prime)}; at q={w['q']}, "
                f"q'={w['q_prime']}, x={w['output']}: gtm = {fraction_text(p)}, {fraction_text(p_prime)}, ratio "
                f"{fraction_text(p / p_prime)} > 1/alpha'; at T = 1/D = {int(spec.support_bound())} alpha' = "
                f"{fraction_text(at_bound)}",
                "flagged" if false_here else "no",
                reason="false without the unstated condition T > 1/D = (1+alpha)/((1-alpha) alpha^n) (the §5 "
                "support bound): below it alpha' < 0, so 'ratio <= 1/alpha' < 0' fails for every ratio "
                ">= 0, and the ratio the other way is infinite (an impossible output); at T = 1/D, "
                "alpha' = 0 and 1/alpha' is undefined",
                command=_privacy_command("1/2", 5, 10),
            ),
        )
    )


def worst_case_prose() -> Part:
    """§6's sentence sets gtm(q) = gtpmf(q) + 1/T and gtm(q') = gtpmf(q') - 1/T but writes the
    ratio with the opposite signs."""
    spec = GtmSpec.create("1/3", 5, 1000)
    inverse_T = Fraction(1, spec.T)
    formula = sentence = None
    for q, q_prime in (*spec.neighbours(), *((b, a) for a, b in spec.neighbours())):
        for x in spec.outputs():
            p, p_prime = _gtpmf(spec.alpha, spec.n, q, x), _gtpmf(spec.alpha, spec.n, q_prime, x)
            low = (p - inverse_T) / (p_prime + inverse_T)
            high = (p + inverse_T) / (p_prime - inverse_T)
            formula = low if formula is None else min(formula, low)
            sentence = high if sentence is None else max(sentence, high)
    if formula is None or sentence is None:
        raise AssertionError("the instance has no neighbouring pair")
    table = {q: spec.pmf(q) for q in spec.inputs()}
    exact = tightest_alpha(table, spec.neighbours()).alpha
    return Part(
        (
            Row(
                "004/section-6/worst-case-prose",
                "the worst case before Theorem 6.2, alpha=1/3, n=5, T=1000",
                "§6",
                "gtm(q) = gtpmf(q) + 1/T and gtm(q') = gtpmf(q') - 1/T; 'thus' DP to the degree "
                "(gtpmf(q) - 1/T)/(gtpmf(q') + 1/T)",
                f"the formula's minimum {short_rational(formula)} bounds the ratio from below; the sentence's "
                f"situation gives (gtpmf(q)+1/T)/(gtpmf(q')-1/T), at most {short_rational(sentence)}, a bound "
                f"from above; exact ratios lie in [{fraction_text(exact)}, {fraction_text(1 / exact)}]",
                "flagged",
                reason="inconsistent with itself: the situation described (numerator +1/T, denominator -1/T) "
                "gives the upper ratio (p+1/T)/(p'-1/T); the formula shown has both signs swapped (it is "
                "the lower bound, the one Theorem 6.2 uses). Neither extreme is attained: by Theorem 6.1 "
                "each deviation is strictly below 1/T",
                kind="reading",
            ),
        )
    )


def not_drastic() -> Part:
    """§7's 'the privacy loss of alpha'-DP is not drastic', against alpha' and the exact ratio."""
    spec = GtmSpec.create("1/3", 5, 1000)
    prime = spec.theorem_6_2_alpha_prime()
    exact = tightest_alpha({q: spec.pmf(q) for q in spec.inputs()}, spec.neighbours()).alpha
    eps, eps_prime, eps_exact = (math.log(1 / float(a)) for a in (spec.alpha, prime, exact))
    return Part(
        (
            Row(
                "004/section-7/not-drastic",
                "alpha' against alpha, alpha=1/3, n=5, T=1000",
                "§7, first sentence",
                "the privacy loss of alpha'-DP is not drastic",
                f"alpha' = {fraction_text(prime)}: epsilon' = ln(1/alpha') = {eps_prime:.4f} against epsilon = "
                f"{eps:.4f} (+{100 * (eps_prime / eps - 1):.0f}%); the exact ratio {fraction_text(exact)} gives "
                f"{eps_exact:.4f}",
                "flagged",
                reason="false without a condition on T: alpha' -> 0 (epsilon' -> infinity) as T decreases to 1/D "
                "and alpha' < 0 below it (no guarantee at all); at T = 1000 the bound is "
                f"{100 * (eps_prime / eps - 1):.0f}% above epsilon, while the exact loss is only "
                f"{100 * (eps_exact / eps - 1):.0f}% above it",
                command=_privacy_command("1/3", 5, 1000),
                kind="reading",
            ),
        )
    )


# --- Theorem 7.1 -------------------------------------------------------------------------------------


def theorem_7_1_row(D: int, n: int, from_code: bool) -> Part:
    """``alpha = 1/D``, ``T = (D+1) D^n``: the implementation's PMF is gtpmf, tightest ratio 1/D."""
    from dpverify.verify.engine._exactness import code_distribution

    T = (D + 1) * D**n
    spec = GtmSpec.create(Fraction(1, D), n, T)
    table = {q: spec.pmf(q) for q in spec.inputs()}
    exact = all(table[q].as_dict() == spec.ideal_pmf(q).as_dict() for q in spec.inputs())
    loss = tightest_alpha(table, spec.neighbours())
    code = ""
    if from_code:
        agrees = all(
            {x: c.masses.get(x, Fraction(0)) for x in spec.outputs()} == table[q].as_dict()
            for q in spec.inputs()
            for c in (code_distribution(spec, q),)
        )
        exact &= agrees
        code = f"; the sampler's code gives the same table: {'yes' if agrees else 'NO'}"
    holds = exact and loss.alpha == spec.alpha
    T_text = f"{D + 1}*{D}^{n}"
    tag = f"D={D}, n={n}"
    stated = "D > 2, alpha = 1/D, T = (D+1) D^n preserves alpha-DP"
    note = None
    if D == 2:
        stated = "requires D > 2"
        note = "the condition D > 2 is stronger than needed: D = 2 is exact too (the proof covers D >= 2)"
    return Part(
        (
            Row(
                f"004/thm-7.1/{tag}",
                f"Theorem 7.1, {tag}, T = {T_text}",
                "Theorem 7.1",
                stated,
                f"P_T = gtpmf exactly for every q: {'yes' if exact else 'NO'}; tightest ratio "
                f"{fraction_text(loss.alpha)} = alpha{code}",
                "yes" if holds else "no",
                reason=note if holds else "the implementation's table differs from gtpmf",
                command=_privacy_command(f"1/{D}", n, T_text),
            ),
        )
    )


def theorem_7_1_smallest_T(D: int, n: int) -> Part:
    """Every T making the implementation exact is a multiple of (D+1) D^(n-1): the paper's T is D times it."""
    alpha = Fraction(1, D)
    paper_T = (D + 1) * D**n
    exact_Ts = [
        T
        for T in range(1, paper_T + 1)
        if all(
            GtmSpec.create(alpha, n, T).pmf(q).as_dict() == GtmSpec.create(alpha, n, T).ideal_pmf(q).as_dict()
            for q in range(n + 1)
        )
    ]
    smallest = (D + 1) * D ** (n - 1)
    expected = list(range(smallest, paper_T + 1, smallest))
    holds = exact_Ts == expected
    return Part(
        (
            Row(
                f"004/thm-7.1/smallest-T/D={D},n={n}",
                f"smallest exact T, D={D}, n={n}",
                "Theorem 7.1",
                f"T = (D+1) D^n = {paper_T}",
                f"exact exactly for T in {exact_Ts} (scan of 1..{paper_T}): the smallest is (D+1) D^(n-1) = {smallest}",
                "yes" if holds else "no",
                reason=(
                    f"the paper's T is exact; it is D = {D} times the smallest exact T"
                    if holds
                    else "the exact T are not the multiples of (D+1) D^(n-1)"
                ),
            ),
        )
    )


# --- the paper ---------------------------------------------------------------------------------------


def _plan(options: Options) -> Plan:
    return Plan(
        (
            Task(pmf_rows),
            Task(ideal_ratio_rows),
            Task(proof_row, ("gtm_ideal_ratio",)),
            Task(support_rows, ("1/3", 5)),
            Task(support_rows, ("1/2", 5)),
            Task(support_rows, ("2/5", 6)),
            Task(theorem_6_1_row, ("1/3", 5, "1000")),
            Task(theorem_6_1_row, ("2/5", 6, "10^100")),
            Task(theorem_6_1_row, ("1/2", 5, "10")),
            Task(proof_row, ("theorem_6_1",)),
            Task(worst_case_prose),
            Task(theorem_6_2_row, ("1/3", 5, "1000")),
            Task(theorem_6_2_row, ("2/5", 6, "10^100")),
            Task(theorem_6_2_below_support),
            Task(proof_row, ("theorem_6_2",)),
            Task(not_drastic),
            Task(theorem_7_1_row, (3, 4, True)),
            Task(theorem_7_1_row, (10, 12, True)),
            Task(theorem_7_1_row, (7, 300, False)),
            Task(theorem_7_1_row, (2, 5, True)),
            Task(theorem_7_1_smallest_T, (3, 3)),
            Task(proof_row, ("theorem_7_1",)),
        )
    )


PAPER = Paper(
    "004",
    "004_51400d10fdc85a9b.txt",
    "Amorim, Gaboardi, Rindisbacher: Verified Differential Privacy for Finite Computers (GTM)",
    ("gtm", "amorim"),
    _plan,
)
