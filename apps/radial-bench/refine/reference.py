"""A NumPy reference of Radial's whole-network objective (radial/refine/network_objective.hpp) for
the ERBF-style model: anisotropic Gaussian RBF, centres, one log width per centre and input,
linear outputs, 1/2 SSE + alpha/2 |W|^2 without the bias. Value and gradient in one call, for
scipy's L-BFGS-B (refine_bench.py) and for radial-bench's per-evaluation timing
(sklearn_side.py refine)."""
import numpy as np


class Reference:
    """The objective on inputs x (N x d), targets t (N x K), from centres c (M x d), starting
    variances s0 (M x d) and weights w ((M + 1) x K, bias last)."""

    def __init__(self, x, t, c, s0, w, alpha):
        self.x, self.x2, self.t = x, x * x, t
        self.m, self.d = c.shape
        self.s0 = s0
        self.alpha = alpha
        self.theta0 = np.concatenate([c.ravel(), np.zeros(self.m * self.d), w.ravel()])
        self.evaluations = 0

    def unpack(self, theta):
        m, d = self.m, self.d
        c = theta[:m * d].reshape(m, d)
        s = self.s0 * np.exp(theta[m * d:2 * m * d].reshape(m, d))
        w = theta[2 * m * d:].reshape(m + 1, -1)
        return c, s, w

    def __call__(self, theta):
        self.evaluations += 1
        c, s, w = self.unpack(theta)
        inv = 1.0 / s
        r2 = self.x2 @ inv.T - 2.0 * self.x @ (c * inv).T + (c * c * inv).sum(1)
        phi = np.exp(-0.5 * np.maximum(r2, 0.0))
        a = phi @ w[:-1] + w[-1]
        res = a - self.t
        e = 0.5 * (res * res).sum() + 0.5 * self.alpha * (w[:-1] ** 2).sum()
        gw = np.vstack([phi.T @ res + self.alpha * w[:-1], res.sum(0, keepdims=True)])
        u = (res @ w[:-1].T) * (-0.5 * phi)
        col = u.sum(0)[:, None]
        ux = u.T @ self.x
        gc = -2.0 * (ux - c * col) * inv
        gs = -(u.T @ self.x2 - 2.0 * c * ux + c * c * col) * inv
        return e, np.concatenate([gc.ravel(), gs.ravel(), gw.ravel()])
