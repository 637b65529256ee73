#!/usr/bin/env python3
"""Fits the rational approximation of erf that the native kernels' GELU uses.

    erf(z) ~= z * P(z^2) / Q(z^2),  z in [0, 4],  Q(0) = 1

P and Q have degree --degree (5: six coefficients in P, five free ones in Q). The fit is
linearised (z P(t) - erf(z) Q(t) = 0 is linear in the coefficients, t = z^2), weighted by the
previous iteration's 1 / Q so the linear residual approaches the true one (Sanathanan-Koerner),
and reweighted toward the largest errors each round (Lawson), which drives the least-squares fit
toward the minimax one. It then rounds the coefficients to float, evaluates the formula in float
with Horner's rule as the kernel does (numpy's float32, no FMA, so a little worse than the AVX2
kernel) and prints both errors and the coefficients in the order activation-inl.h writes them.

    $(scripts/python_env.sh) scripts/fit_erf.py [--degree 5] [--iterations 60]

Needs numpy (in the pinned environment of scripts/python_env.sh).
"""

import argparse
import math

import numpy as np


def fit(degree, iterations, z_max):
    z = np.linspace(0.0, z_max, 20001)[1:]
    erf = np.array([math.erf(v) for v in z])
    t = z * z
    powers = np.stack([t**i for i in range(degree + 1)], axis=1)
    design = np.concatenate([z[:, None] * powers, -erf[:, None] * powers[:, 1:]], axis=1)
    weights = np.ones_like(z)
    q_previous = np.ones_like(z)
    for _ in range(iterations):
        scale = weights / q_previous
        solution, *_ = np.linalg.lstsq(design * scale[:, None], erf * scale, rcond=None)
        p = solution[: degree + 1]
        q = np.concatenate([[1.0], solution[degree + 1 :]])
        q_previous = powers @ q
        error = z * (powers @ p) / q_previous - erf
        weights = np.maximum(weights * np.sqrt(np.abs(error)), 1e-300)
        weights /= weights.sum()
    return p, q, np.abs(error).max()


def horner_float32(coefficients, t):
    result = np.full_like(t, coefficients[-1])
    for c in coefficients[-2::-1]:
        result = (result * t + c).astype(np.float32)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--degree", type=int, default=5, help="degree of P and Q in z^2")
    parser.add_argument("--iterations", type=int, default=60, help="reweighting rounds")
    parser.add_argument("--z-max", type=float, default=4.0, help="end of the fitted range")
    args = parser.parse_args()

    p, q, exact_error = fit(args.degree, args.iterations, args.z_max)
    p32, q32 = p.astype(np.float32), q.astype(np.float32)
    z = np.linspace(0.0, args.z_max, 400001).astype(np.float32)
    t = (z * z).astype(np.float32)
    approx = ((z * horner_float32(p32, t)).astype(np.float32) / horner_float32(q32, t)).astype(
        np.float32
    )
    float_error = np.abs(approx - np.array([math.erf(float(v)) for v in z]))
    print(f"max |error| with the fitted coefficients, exact arithmetic: {exact_error:.3g}")
    print(
        f"max |error| in float32 (no FMA): {float_error.max():.3g} at z = "
        f"{z[np.argmax(float_error)]:.6g}; erf({args.z_max:g}) evaluates to {approx[-1]!r}"
    )
    print("P, highest power first:", ", ".join(f"{c:.8e}f" for c in p32[::-1]))
    print("Q, highest power first:", ", ".join(f"{c:.8e}f" for c in q32[::-1]))


if __name__ == "__main__":
    main()
