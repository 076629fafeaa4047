"""The privacy verdict of one GTM instance: what ``dpverify privacy gtm`` prints.

Combines the exact table (``dpverify.specs.gtm``) with the paper's bounds (Amorim, Gaboardi,
Rindisbacher: §5 support condition, Theorem 6.2's ``alpha'``, Theorem 7.1).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dpverify.samplers._rational import RationalLike, as_fraction
from dpverify.specs import ExactPmf, GtmSpec, PureDpClaim
from dpverify.verify.engine._arguments import need_instance
from dpverify.verify.engine._results import fraction_text, json_number
from dpverify.verify.privacy._gtm_fast import gtm_every_output_possible, gtm_tightest_alpha
from dpverify.verify.privacy._ratio import PrivacyLoss, check_pure_dp, tightest_alpha

__all__ = ["PRIVACY_GTM_SCHEMA", "gtm_privacy", "gtm_table"]

#: The ``schema`` field of :func:`gtm_privacy`'s document (``dpverify privacy gtm --json``).
PRIVACY_GTM_SCHEMA = "dpverify.privacy-gtm/1"


def gtm_table(spec: GtmSpec) -> dict[int, Any]:
    """The implementation's exact PMF for every input ``q``."""
    need_instance("spec", spec, GtmSpec, 'a GtmSpec, e.g. GtmSpec.create("1/3", 5, 1000)')
    return {q: spec.pmf(q) for q in spec.inputs()}


def gtm_privacy(
    spec: GtmSpec, claim_alpha: RationalLike | None = None, table: Mapping[int, ExactPmf] | None = None
) -> dict[str, Any]:
    """The full privacy verdict as a JSON-ready dict (schema in the README).

    ``claim_alpha`` defaults to the spec's alpha; floats are refused like everywhere else.

    Without ``table`` the verdict is the spec's closed-form table, read through its ``O(n)``
    distinct neighbour pairs (``dpverify.verify.privacy._gtm_fast``; equal to the full-table
    scan, witness included).  With ``table`` (e.g. PMFs derived from the sampler code) the verdict
    is that table's, scanned entry by entry: the closed form never stands in for a table given.
    """
    need_instance("spec", spec, GtmSpec, 'a GtmSpec, e.g. GtmSpec.create("1/3", 5, 1000)')
    # as_fraction: what PureDpClaim does with it, and the Fraction its field is typed as
    claim = PureDpClaim(as_fraction("claim alpha", spec.alpha if claim_alpha is None else claim_alpha))
    loss: PrivacyLoss
    if table is None:
        loss, every_output_possible = gtm_tightest_alpha(spec), gtm_every_output_possible(spec)
    else:
        loss = tightest_alpha(table, spec.neighbours())
        every_output_possible = all(all(row.weights) for row in table.values())
    return {
        "schema": PRIVACY_GTM_SCHEMA,
        "mechanism": "gtm",
        "parameters": spec.parameters(),
        "alpha_exact": fraction_text(loss.alpha),
        "epsilon": json_number(loss.epsilon),
        "infinite_loss": loss.infinite,
        "witness": None if loss.witness is None else loss.witness.to_json(),
        "full_support": spec.T >= spec.support_bound(),
        "support_bound": fraction_text(spec.support_bound()),
        "every_output_possible": every_output_possible,
        "thm62_alpha_prime": fraction_text(spec.theorem_6_2_alpha_prime()),
        "thm62_holds": loss.alpha >= spec.theorem_6_2_alpha_prime(),
        "thm71_instance": spec.is_theorem_7_1_instance(),
        "claim_alpha": fraction_text(claim.alpha),
        "claim_holds": loss.alpha >= claim.alpha,
        "verdict": check_pure_dp(loss, claim).verdict.value,
    }
