"""Privacy analyses of exact distributions: the tightest ratio and its Z3 check, claims whose
bound is irrational, privacy loss distributions and composition, the accountants, the Gaussian
calibration, the timing channel, mechanisms built from the samplers.

May import: the engine (and ``samplers``, ``specs``); never ``precision``, its sibling.
"""
