"""diffprivlib's LogisticRegression releases the set of labels in its training data (Cebere, Erb,
Desfontaines, Bellet, Fitzsimons, "Privacy in Theory, Bugs in Practice", PETS 2026;
IBM/differential-privacy-library#106, open).

Library: diffprivlib 0.6.6 (no fixed version; its LogisticRegression runs with scikit-learn < 1.8, which
removed the multi_class argument it passes).  Release: the fitted model of
LogisticRegression(epsilon=1.0, data_norm=1.0).fit(X, y), claimed epsilon-DP; data_norm is given, so no
norm is read from the data.  fit sets classes_ = np.unique(y) from the private labels before any noise is
drawn, and trains one noisy one-vs-rest model per class (one for two classes).  LogisticRegression has no
parameter to declare the labels, and its documentation does not say they are public (the library's own
forests warn, with a PrivacyLeakWarning, when their classes are read from the data).  D has one record of
label 2; its neighbour D' is D without it.  Every fit on D releases classes_ [0, 1, 2] and a coef_ of
shape (3, 2); no fit on D' can (np.unique of labels {0, 1}): the releases have disjoint supports, so the
privacy loss is infinite.  The fits use the library's own randomness (random_state = 20 seeds).
Usage: python diffprivlib_106_labels.py
"""

import warnings

import numpy as np
from diffprivlib.accountant import BudgetAccountant
from diffprivlib.models import LogisticRegression

X = np.array([[0.1, 0.2], [0.3, -0.1], [-0.2, 0.4], [0.5, 0.5], [-0.4, -0.3], [0.2, -0.6], [-0.4, 0.1]])
Y = np.array([0, 1, 0, 1, 0, 1, 2])


def released(x: np.ndarray, y: np.ndarray, seed: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = LogisticRegression(epsilon=1.0, data_norm=1.0, random_state=seed, accountant=BudgetAccountant())
        model.fit(x, y)
    return tuple(int(c) for c in model.classes_), tuple(int(s) for s in model.coef_.shape)


def main() -> None:
    at_d = {released(X, Y, seed) for seed in range(20)}
    at_neighbour = {released(X[:-1], Y[:-1], seed) for seed in range(20)}
    print(f"D  (labels {Y.tolist()}): (classes_, coef_.shape) over 20 seeds = {sorted(at_d)}")
    print(f"D' (the label-2 record removed): (classes_, coef_.shape) over 20 seeds = {sorted(at_neighbour)}")
    print(f"releases at D and D' disjoint: {not at_d & at_neighbour}")


if __name__ == "__main__":
    main()
