"""Warner's randomized response on one bit, with an exact ratio: a package gated in CI by dpverify."""
