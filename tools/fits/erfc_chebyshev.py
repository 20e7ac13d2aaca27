#!/usr/bin/python3
"""Chebyshev coefficients of h(x) = exp(x^2) * erfc(x) on [0.5, 2], the
middle range of chlo.erfc (frontends/chlo_decompositions.cc). h is computed
to 60 digits (the series of erf), interpolated at 64 Chebyshev nodes in
u = (x - 1.25) / 0.75, and the first 23 coefficients printed; the last ones
are at the level of double rounding (about 2e-16).

Run: /usr/bin/python3 tools/fits/erfc_chebyshev.py   (needs python3-numpy)
"""
from decimal import Decimal, getcontext

import numpy as np

getcontext().prec = 60
PI = Decimal("3.14159265358979323846264338327950288419716939937510582097494")


def h(x):
    big = Decimal(x)
    total, term, k = Decimal(0), big, 0
    while True:  # erf(x) = 2/sqrt(pi) * sum (-1)^k x^(2k+1) / (k! (2k+1))
        piece = term / (2 * k + 1)
        total += piece
        if abs(piece) < Decimal(10) ** -58:
            break
        k += 1
        term *= -big * big / k
    erfc = 1 - 2 / PI.sqrt() * total
    return float((big * big).exp() * erfc)


N = 64
theta = np.pi * (np.arange(N) + 0.5) / N
values = np.array([h(x) for x in np.cos(theta) * 0.75 + 1.25])
coefficients = [2.0 / N * np.sum(values * np.cos(j * theta)) for j in range(23)]
coefficients[0] /= 2
for c in coefficients:
    print(repr(float(c)) + ",")
