#!/usr/bin/python3
"""Chebyshev coefficients for chlo.bessel_i1e (frontends/chlo_decompositions.cc),
i1e(x) = exp(-|x|) I1(x):
  on [0, 8]:  exp(-x) I1(x) / x        in u = x / 4 - 1;
  beyond 8:   exp(-x) I1(x) sqrt(x)    in u = 16 / x - 1  (t = 8 / x in (0, 1]).
I1 comes from its power series in 80-digit decimals (its asymptotic series
past x = 400), the functions are interpolated at 96 Chebyshev nodes, and
the coefficients printed down to where they reach double rounding (2e-16).

Run: /usr/bin/python3 tools/fits/bessel_i1e_chebyshev.py   (needs python3-numpy)
"""
from decimal import Decimal, getcontext

import numpy as np

getcontext().prec = 80
PI = Decimal("3.1415926535897932384626433832795028841971693993751058209749445923078164062862")


def i1e(x):
    big = Decimal(x)
    if x > 400:  # exp(-x) I1(x) = 1/sqrt(2 pi x) * sum_k prod_{j<=k} -(4 - (2j-1)^2) / (j 8x)
        total, term = Decimal(0), Decimal(1)
        for k in range(1, 40):
            total += term
            term *= -(4 - Decimal(2 * k - 1) ** 2) / (k * 8 * big)
        return total / (2 * PI * big).sqrt()
    half = big / 2
    total, term, k = Decimal(0), half, 0
    while True:
        total += term
        k += 1
        term *= half * half / (k * (k + 1))
        if term < total * Decimal(10) ** -70:
            break
    return (-big).exp() * total


def chebyshev(f, n=96):
    theta = np.pi * (np.arange(n) + 0.5) / n
    values = np.array([f(u) for u in np.cos(theta)])
    c = [2.0 / n * np.sum(values * np.cos(j * theta)) for j in range(n)]
    c[0] /= 2
    # Stop at the first coefficient at the level of double rounding.
    last = next((j for j in range(n) if abs(c[j]) < 2e-16), n)
    return c[:last]


near = chebyshev(lambda u: float(i1e(4 * (u + 1)) / Decimal(4 * (u + 1))) if u > -1 else 0.5)
far = chebyshev(lambda u: float(i1e(16 / (u + 1)) * (Decimal(16) / Decimal(u + 1)).sqrt()))
print("near (%d):" % len(near))
for c in near:
    print("    " + repr(float(c)) + ",")
print("far (%d):" % len(far))
for c in far:
    print("    " + repr(float(c)) + ",")
