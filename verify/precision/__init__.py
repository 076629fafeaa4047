"""Finite-precision analyses: what floating and fixed point do to a mechanism (the float
Laplace attack, Mironov's reachability, Gazeau–Miller–Palamidessi's repair, the planar
Laplace, the fixed-point leak, the grid Laplace proof).

May import: the engine (and ``samplers``, ``specs``); never ``privacy``, its sibling.
"""
