"""The exact float Laplace attack document and the early-exit witness (verify/precision/_float_attack.py).

The oracle is brute force: every draw of both inputs run through the real sampler code.
"""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest

from dpverify.samplers import InvalidArgument
from dpverify.samplers.laplace_float_unsafe import mechanism_unsafe
from dpverify.verify.precision._float_attack import attack_text, first_violation, laplace_float_attack
from dpverify.verify.precision._float_exact import float_pmf, float_privacy

SEED = 20261123


def _counts(q: float, b: float, k: int) -> Counter[float]:
    return Counter(mechanism_unsafe(q, b, j, k) for j in range(1, 1 << k))


@pytest.mark.parametrize("bits", [12, 13, 14, 15, 16])
def test_textbook_laplace_has_infinite_loss_with_a_checked_witness(bits: int) -> None:
    document = laplace_float_attack(1.0, 0.0, 1.0, bits, samples=30, seed=SEED)
    assert document["epsilon"] == "Infinity" and document["ratio"] is None
    assert document["bits"] == bits and document["draws"] == (1 << bits) - 1
    assert document["ideal_epsilon"] == 1.0
    witness = document["witness"]
    output = float.fromhex(witness["output_hex"])
    assert output == witness["output"]
    inputs = {"q": 0.0, "q_prime": 1.0}
    this = inputs[witness["from_input"]]
    other = inputs["q_prime" if witness["from_input"] == "q" else "q"]
    # Brute force: the witness draw gives the output from one input, no draw gives it from the other.
    assert mechanism_unsafe(this, 1.0, witness["j"], bits) == output
    assert output not in _counts(other, 1.0, bits)
    count = _counts(this, 1.0, bits)[output]
    expected = {"q": count, "q_prime": 0} if witness["from_input"] == "q" else {"q": 0, "q_prime": count}
    assert witness["counts"] == expected
    reach = document["reachability"]
    assert reach["bits"] == 53 and reach["samples"] == 30 and reach["seed"] == SEED
    json.dumps(document, allow_nan=False)  # valid JSON: no NaN or Infinity literals


def test_equal_inputs_have_zero_loss_and_a_finite_ratio() -> None:
    document = laplace_float_attack(2.5, 0.25, 0.25, 10, samples=0, seed=1)
    assert document["epsilon"] == 0.0 and document["ratio"] == "1"
    assert document["reachability"] is None
    assert "skipped" in attack_text(document)


def test_the_document_agrees_with_float_privacy_on_nested_supports() -> None:
    """At 4 bits the outputs of 2^53 are a strict subset of those of 2^53 - 1: the witness comes from q'."""
    q, q2, b, k = 2.0**53, 2.0**53 - 1.0, 1.0, 4
    document = laplace_float_attack(b, q, q2, k, samples=0, seed=1)
    loss = float_privacy(
        float_pmf(lambda j: mechanism_unsafe(q, b, j, k), range(1, 1 << k)),
        float_pmf(lambda j: mechanism_unsafe(q2, b, j, k), range(1, 1 << k)),
    )
    assert document["witness"]["j"] == loss.draw and document["witness"]["from_input"] == loss.from_input == "q_prime"
    assert document["epsilon"] == ("Infinity" if math.isinf(loss.epsilon) else loss.epsilon)


def test_text_report_names_epsilon_witness_and_replay() -> None:
    text = attack_text(laplace_float_attack(1.0, 0.0, 1.0, 12, samples=20, seed=SEED))
    assert "epsilon = Infinity" in text and "witness" in text and f"--seed {SEED}" in text
    assert "reachability at 53 bits" in text


@pytest.mark.parametrize("k", [12, 14, 16])
def test_first_violation_is_a_brute_force_witness(k: int) -> None:
    found = first_violation(0.0, 1.0, 1.0, k)
    assert found is not None and found.from_input == "q" and found.k == k
    assert mechanism_unsafe(0.0, 1.0, found.j, k) == found.output
    assert found.output not in _counts(1.0, 1.0, k)
    # It is the *first* draw of q that leaves q''s output set.
    earlier = {mechanism_unsafe(0.0, 1.0, j, k) for j in range(1, found.j)}
    assert earlier <= set(_counts(1.0, 1.0, k))
    assert found.enumerated == (1 << k) - 1 and found.scanned == found.j


def test_first_violation_checks_the_reverse_direction() -> None:
    """At 4 bits every output of 2^53 is one of 2^53 - 1, but not conversely."""
    q, q2, b, k = 2.0**53, 2.0**53 - 1.0, 1.0, 4
    assert set(_counts(q, b, k)) < set(_counts(q2, b, k))
    found = first_violation(q, q2, b, k)
    assert found is not None and found.from_input == "q_prime"
    assert mechanism_unsafe(q2, b, found.j, k) == found.output and found.output not in _counts(q, b, k)


def test_first_violation_of_equal_inputs_is_none() -> None:
    assert first_violation(0.0, 0.0, 1.0, 10) is None


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"bits": 25}, "bits"),
        ({"bits": 1}, "bits"),
        ({"bits": 53}, "bits"),
        ({"bits": True}, "bits"),
        ({"bits": 12.0}, "bits"),
        ({"scale": 0.0}, "scale"),
        ({"scale": -1}, "scale"),
        ({"scale": math.nan}, "scale"),
        ({"scale": "abc"}, "scale"),
        ({"q": math.inf}, "q"),
        ({"q": "nan"}, "q"),
        ({"q_prime": None}, "q_prime"),
        ({"q_prime": 2**70 + 1}, "q_prime"),
        ({"samples": -1}, "samples"),
        ({"samples": 1.5}, "samples"),
        ({"seed": -2}, "seed"),
    ],
)
def test_bad_arguments_get_a_one_line_error(kwargs: dict[str, object], name: str) -> None:
    arguments: dict[str, object] = {"scale": 1.0, "q": 0.0, "q_prime": 1.0, "bits": 12, "samples": 0, "seed": 1}
    arguments.update(kwargs)
    with pytest.raises(InvalidArgument) as raised:
        laplace_float_attack(
            arguments.pop("scale"),
            arguments.pop("q"),
            arguments.pop("q_prime"),  # type: ignore[arg-type]
            arguments.pop("bits"),
            **arguments,
        )  # type: ignore[arg-type]
    message = str(raised.value)
    assert "\n" not in message and message.startswith(name), message


def test_too_many_bits_says_the_range_and_why() -> None:
    with pytest.raises(InvalidArgument) as raised:
        first_violation(0.0, 1.0, 1.0, 30)
    message = str(raised.value)
    assert "2 <= bits <= 24" in message and "bits=30" in message and "2^bits - 1 draws" in message


def test_string_parameters_from_the_command_line_are_parsed_as_doubles() -> None:
    document = laplace_float_attack("1", "0", "1e0", 8, samples=0, seed=1)
    assert (document["scale"], document["q"], document["q_prime"]) == (1.0, 0.0, 1.0)
