"""Opacus: the findings on what DP-SGD's optimizer step releases.

- ``jin-gauss-opacus`` (Jin et al., S&P 2022; pytorch/opacus PR #260, which added ``secure_mode``):
  at 0.15.0 the ``PrivacyEngine`` attached to an optimizer adds ``torch.normal`` noise to the
  clipped, summed float32 gradient (``PrivacyEngine.step`` and ``_generate_noise``), with
  ``secure_rng=False`` by default.  The released ``p.grad = g + noise`` is rounded to float32, so
  outputs near 0 are coarse multiples of ``2**-24`` when ``g`` is near 1 and fine when ``g = 0``.
  Audited through the public training step (``optimizer.step()`` after ``backward()``) on a one-weight
  linear model and a one-record batch ``x`` in ``{0, 1}`` (per-example gradient ``x``, clipped to
  ``max_grad_norm = 1``), as a black box against the Gaussian mechanism's ``rho = 1/(2 sigma^2)``.
- ``cebere-opacus-571-batchsize`` (Cebere et al., PETS 2026; pytorch/opacus#571): ``make_private``
  sets ``expected_batch_size = int(len(dataset) * sample_rate)`` and, with ``loss_reduction='mean'``,
  the optimizer divides the noised sum by it, so the size of the private dataset scales the released
  update.  Audited by replaying one optimizer step, from the same initial weights, on neighbouring
  datasets of 7 and 8 records (one added; the same sample rate 1/2, expected batch sizes 3 and 4),
  whose per-example gradients are all 0: the update is ``-lr * noise / expected_batch_size``, Gaussian
  at two scales.  The claim is the one the engine states after that step: its accountant's epsilon at
  ``delta = 1e-5``.
"""

from __future__ import annotations

import math
import os
import random
import warnings
from collections.abc import Callable
from fractions import Fraction
from typing import Any

#: Per draw process: (process id, key) -> the state that process replays its draws on.
_STATE: dict[tuple[int, Any], Any] = {}


# --- jin-gauss-opacus: opacus 0.15.0's PrivacyEngine.step ---------------------------------------------


def _engine_015(sigma: float) -> tuple[Any, Any, Any]:
    """A one-weight linear model with a 0.15.0 ``PrivacyEngine`` attached to its SGD optimizer, made once
    per draw process; its noise generator is seeded from ``random`` (which each draw process seeds)."""
    key = (os.getpid(), ("0.15", sigma))
    if key not in _STATE:
        import torch
        from opacus import PrivacyEngine

        torch.set_num_threads(1)
        model = torch.nn.Linear(1, 1, bias=False)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Secure RNG turned off": the default this finding is about
            engine = PrivacyEngine(
                model, sample_rate=1.0, noise_multiplier=sigma, max_grad_norm=1.0, loss_reduction="sum"
            )
            engine.attach(optimizer)
            # the library's own seeding (documented for deterministic runs), so that a run replays
            engine.random_number_generator = engine._set_seed(random.getrandbits(63))
        _STATE[key] = (torch, model, optimizer)
    return _STATE[key]  # type: ignore[no-any-return]


def opacus_015_noisy_gradient(x: int, sigma: float = 1.0) -> float:
    """What opacus 0.15.0 releases as ``p.grad`` after one training step on the one-record batch ``[[x]]``:
    the clipped per-example gradient (``x`` for the loss ``w * x``) plus ``N(0, sigma^2)``, in float32."""
    torch, model, optimizer = _engine_015(sigma)
    optimizer.zero_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's notice on 0.15.0's non-full backward hooks
        model(torch.tensor([[float(x)]])).sum().backward()
    optimizer.step()
    return float(model.weight.grad.item())


def _jin_gauss_opacus(version: str, seed: int, samples: int) -> dict[str, Any]:
    """Opacus 0.15.0's default (``secure_rng=False``) noisy gradient at ``x = 0`` and ``x = 1``, claimed
    ``1/2``-zCDP (``sigma = 1``, sensitivity ``max_grad_norm = 1``, sample rate 1)."""
    import bench_known_findings as bench

    from dpverify.specs._api import Case, Input, Spec
    from dpverify.specs._claims import Zcdp
    from dpverify.verify.published._blackbox import audit_case

    spec = Spec(
        name="opacus-0.15-gaussian",
        sampler=lambda x: opacus_015_noisy_gradient(x),
        parameters={},
        input=Input("x", values=lambda p: (0, 1), neighbours=1),
        claim=lambda p: Zcdp(rho=Fraction(1, 2)),
        randomness="none",
        description="opacus 0.15.0: p.grad = clip(x) + torch.normal(0, 1) after optimizer.step()",
        cases=(Case({}, "violated", "float32 sums near 0 are coarse when g = 1", label="sigma=1"),),
    )
    result = audit_case(spec, spec.cases[0], seed=seed, samples=samples, time_limit=600)
    privacy = bench._privacy_check(result)
    if privacy is None:
        reason = "; ".join(c.summary for c in result.checks) or "no privacy test ran"
        return {"verdict": "inconclusive", "method": "black box", "evidence": reason[:300], "magnitude": "-"}
    evidence = privacy.evidence or {}
    return {
        "verdict": bench._statistical(privacy.verdict.value),
        "method": "black box (seeded; PrivacyEngine attached, optimizer.step() on a one-record batch)",
        "evidence": privacy.summary[:300],
        "magnitude": f"rho >= {evidence.get('rho_lower_bound', '-')} (certified; claimed 1/2)",
    }


# --- cebere-opacus-571-batchsize: opacus 1.6.0's make_private with loss_reduction='mean' ---------------

#: The neighbours: 7 records and 8 (one added); batch size 4 gives 2 batches and sample rate 1/2 for both,
#: so ``expected_batch_size = int(n / 2)`` is 3 and 4.
_SIZES = (7, 8)
_BATCH = 4
#: The model's weights (one linear layer, no bias): the update is released whole.
_WIDTH = 256
_SIGMA = 1.0
_DELTA = 1e-5
#: The draws per dataset: a training step costs milliseconds, and these certify.
_MAX_DRAWS = 4000


def _private_step_state(records: int, generator_seed: int) -> tuple[Any, Any, Any, Any, Any, Any]:
    """``make_private`` on ``records`` zero records: (torch, engine, model, optimizer, loader, initial weights)."""
    import torch
    from opacus import PrivacyEngine
    from torch.utils.data import DataLoader, TensorDataset

    torch.set_num_threads(1)
    torch.manual_seed(0)  # the same initial weights at both datasets
    model = torch.nn.Linear(_WIDTH, 1, bias=False)
    initial = model.weight.detach().clone()
    dataset = TensorDataset(torch.zeros(records, _WIDTH))
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    generator = torch.Generator()
    generator.manual_seed(generator_seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Secure RNG turned off", and the backward hooks' notices
        engine = PrivacyEngine()
        private, optimizer, loader = engine.make_private(
            module=model,
            optimizer=optimizer,
            data_loader=DataLoader(dataset, batch_size=_BATCH),
            noise_multiplier=_SIGMA,
            max_grad_norm=1.0,
            noise_generator=generator,
        )  # loss_reduction='mean' and poisson_sampling=True: the defaults
    return torch, engine, private, optimizer, loader, initial


def _one_step(torch: Any, private: Any, optimizer: Any, loader: Any, initial: Any) -> Any:
    """One training step from ``initial`` on a batch the private loader draws; the weights after it."""
    with torch.no_grad():
        private._module.weight.copy_(initial)
    (batch,) = next(iter(loader))
    optimizer.zero_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the full backward hook's notice that no input requires a gradient
        private(batch).sum().backward()  # the gradient of w . x at x = 0: every per-example gradient is 0
    optimizer.step()
    return private._module.weight.detach()


def opacus_571_update(x: int) -> tuple[float, ...]:
    """The parameter update one private step releases on dataset ``x`` (0: 7 records, 1: 8 records)."""
    key = (os.getpid(), ("571", x))
    if key not in _STATE:
        _STATE[key] = _private_step_state(_SIZES[x], random.getrandbits(63))
    torch, _, private, optimizer, loader, initial = _STATE[key]
    after = _one_step(torch, private, optimizer, loader, initial)
    return tuple((after - initial).flatten().tolist())


def _claimed_epsilon() -> tuple[float, list[int]]:
    """The engine's own statement after one step, at each dataset (the same: both have sample rate 1/2),
    and the expected batch sizes ``make_private`` chose."""
    claims, sizes = [], []
    for records in _SIZES:
        torch, engine, private, optimizer, loader, initial = _private_step_state(records, 0)
        _one_step(torch, private, optimizer, loader, initial)
        claims.append(float(engine.get_epsilon(_DELTA)))
        sizes.append(int(optimizer.expected_batch_size))
    return max(claims), sizes


def _cebere_opacus_571(version: str, seed: int, samples: int) -> dict[str, Any]:
    import bench_known_findings as bench

    from dpverify.specs._api import Case, Input, Spec
    from dpverify.specs._claims import ApproxDp
    from dpverify.verify.published._blackbox import audit_case

    epsilon, sizes = _claimed_epsilon()
    claimed = Fraction(math.ceil(epsilon * 10**4), 10**4)  # rounded up: the claim read generously
    spec = Spec(
        name="opacus-571-expected-batch-size",
        sampler=lambda x: opacus_571_update(x),
        parameters={},
        input=Input("x", values=lambda p: (0, 1), neighbours=1),
        claim=lambda p: ApproxDp(epsilon=claimed, delta=Fraction(1, 10**5)),
        randomness="none",
        description="opacus make_private(loss_reduction='mean'): one step's update on 7 vs 8 zero records",
        cases=(Case({}, "violated", "the update's scale is 1/expected_batch_size", label="n=7 vs 8"),),
    )
    draws = min(samples, _MAX_DRAWS)
    result = audit_case(spec, spec.cases[0], seed=seed, samples=draws, time_limit=600)
    privacy = bench._privacy_check(result)
    if privacy is None:
        reason = "; ".join(c.summary for c in result.checks) or "no privacy test ran"
        return {"verdict": "inconclusive", "method": "record-replay, black box", "evidence": reason[:300]}
    evidence = privacy.evidence or {}
    setting = f"n={_SIZES[0]} vs {_SIZES[1]} zero records, expected_batch_size {sizes[0]} vs {sizes[1]}: "
    counts, event = evidence.get("held_out_counts"), evidence.get("event")
    if counts and event:  # the event and both held-out counts, which the summary's first 300 characters cut
        more, less = (_SIZES[int(evidence["more_likely_under"])], _SIZES[int(evidence["less_likely_under"])])
        setting += (
            f"event {event['description']}: {counts['more_likely']}/{draws // 2} held-out draws at n={more} "
            f"(P >= {float(Fraction(evidence['p_more_likely_lower'])):.4g}) vs {counts['less_likely']}/{draws // 2} "
            f"at n={less} (P <= {float(Fraction(evidence['p_less_likely_upper'])):.4g}); "
        )
    return {
        "verdict": bench._statistical(privacy.verdict.value),
        "method": f"record-replay: one step per draw from the same weights ({draws} per dataset), black box on "
        f"the {_WIDTH}-weight update; claim: get_epsilon({_DELTA}) after the step = {float(claimed)}",
        "evidence": (setting + privacy.summary)[:300],
        "magnitude": f"epsilon >= {evidence.get('epsilon_lower_bound_at_delta', '-')} at delta = 1e-5; "
        f"delta >= {evidence.get('delta_lower_bound_at_epsilon_decimal', '-')} at the claimed epsilon (certified)",
    }


AUDITS: dict[str, Callable[[str, int, int], dict[str, Any]]] = {
    "jin-gauss-opacus": _jin_gauss_opacus,
    "cebere-opacus-571-batchsize": _cebere_opacus_571,
}
