"""L-BFGS over a batch of independent problems (the restarts of a fit), as one tensor.

Each row of the (R, P) parameter tensor is its own minimisation: its own curvature history, its own
backtracking (Armijo) line search and its own convergence test, all vectorised over R; the objective is
evaluated for the whole batch (or the rows still searching) in one call. Curvature pairs with
s'y <= 1e-10 ||s|| ||y|| are skipped (masked), the standard safeguard when the line search is not Wolfe.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch


@dataclass
class LBFGSResult:
    x: torch.Tensor          # (R, P)
    f: torch.Tensor          # (R,)
    grad: torch.Tensor       # (R, P)
    n_iter: torch.Tensor     # (R,) iterations taken
    status: torch.Tensor     # (R,) long: one of STATUS (index)
    n_evals: int             # objective calls (each for a batch of rows)

    @property
    def converged(self) -> torch.Tensor:
        """Rows that met the gradient tolerance."""
        return self.status == STATUS.index("converged")


#: why a row stopped: the gradient tolerance was met; an iteration decreased f by less than ftol
#: (relative) without meeting it; no step along the search direction decreased f; max_iter reached
STATUS = ("converged", "stalled", "line search failed", "max_iter")


def batched_lbfgs(fun: Callable[[torch.Tensor, torch.Tensor], tuple[torch.Tensor, torch.Tensor]],
                  x0: torch.Tensor, *, history: int = 10, max_iter: int = 500, gtol: float = 1e-5,
                  ftol: float = 1e-10, max_backtrack: int = 40, c1: float = 1e-4,
                  max_step: float = 5.0) -> LBFGSResult:
    """Minimise each row of ``x0`` independently.

    ``fun(x, rows)`` gets a (k, P) tensor of parameters for the row indices ``rows`` (a LongTensor)
    and returns values (k,) and gradients (k, P); a non-finite value means "outside the domain" and
    makes the line search step back. Convergence of a row: max |grad| <= gtol * max(1, |f|) or a
    relative decrease below ftol over an iteration (stops the row as "stalled", not converged).
    """
    x = x0.clone()
    R, P = x.shape
    dtype = x.dtype
    all_rows = torch.arange(R)
    f, g = fun(x, all_rows)
    n_evals = 1
    if not torch.isfinite(f).all():
        bad = torch.nonzero(~torch.isfinite(f)).flatten().tolist()
        raise FloatingPointError(f"the objective is not finite at the starting point of restart(s) {bad}")
    S = torch.zeros(history, R, P, dtype=dtype)
    Y = torch.zeros(history, R, P, dtype=dtype)
    rho = torch.zeros(history, R, dtype=dtype)
    active = torch.ones(R, dtype=torch.bool)
    status = torch.full((R,), STATUS.index("max_iter"), dtype=torch.long)
    n_iter = torch.zeros(R, dtype=torch.long)
    slot = 0
    n_stored = 0
    gamma = torch.ones(R, dtype=dtype)
    first = True
    for it in range(max_iter):
        done = active & (g.abs().amax(dim=1) <= gtol * torch.clamp(f.abs(), min=1.0))
        status[done] = STATUS.index("converged")
        active &= ~done
        if not active.any():
            break
        # two-loop recursion, vectorised over rows (masked pairs have rho = 0 and drop out)
        q = g.clone()
        alphas = []
        order = [(slot - 1 - i) % history for i in range(n_stored)]
        for i in order:
            a = rho[i] * (S[i] * q).sum(1)
            q -= a.unsqueeze(1) * Y[i]
            alphas.append(a)
        r = gamma.unsqueeze(1) * q
        for i, a in zip(reversed(order), reversed(alphas)):
            b = rho[i] * (Y[i] * r).sum(1)
            r += S[i] * (a - b).unsqueeze(1)
        d = -r
        slope = (d * g).sum(1)
        bad_dir = ~(slope < 0) | ~torch.isfinite(slope)
        if bad_dir.any():          # not a descent direction: steepest descent for those rows
            d[bad_dir] = -g[bad_dir]
            slope = (d * g).sum(1)
        # first step of a row: a step of length at most 1 in the sup norm
        dn = d.abs().amax(dim=1)
        t = torch.ones(R, dtype=dtype)
        if first:
            t = torch.clamp(1.0 / torch.clamp(dn, min=1e-12), max=1.0)
        t = torch.minimum(t, max_step / torch.clamp(dn, min=1e-12))
        # backtracking Armijo, per row
        searching = active.clone()
        x_new = x.clone()
        f_new = f.clone()
        g_new = g.clone()
        accepted = torch.zeros(R, dtype=torch.bool)
        for _ in range(max_backtrack):
            rows = torch.nonzero(searching).flatten()
            if rows.numel() == 0:
                break
            xt = x[rows] + t[rows].unsqueeze(1) * d[rows]
            ft, gt = fun(xt, rows)
            n_evals += 1
            ok = torch.isfinite(ft) & (ft <= f[rows] + c1 * t[rows] * slope[rows])
            ok_rows = rows[ok]
            x_new[ok_rows] = xt[ok]
            f_new[ok_rows] = ft[ok]
            g_new[ok_rows] = gt[ok]
            accepted[ok_rows] = True
            searching[ok_rows] = False
            t[rows[~ok]] *= 0.5
        # rows whose line search failed cannot improve further: stop them (not converged)
        failed = active & ~accepted
        status[failed] = STATUS.index("line search failed")
        active &= ~failed
        upd = accepted
        s = x_new - x
        yv = g_new - g
        sy = (s * yv).sum(1)
        good = upd & (sy > 1e-10 * s.norm(dim=1) * yv.norm(dim=1))
        S[slot] = torch.where(good.unsqueeze(1), s, torch.zeros_like(s))
        Y[slot] = torch.where(good.unsqueeze(1), yv, torch.zeros_like(yv))
        rho[slot] = torch.where(good, 1.0 / torch.where(good, sy, torch.ones_like(sy)), torch.zeros_like(sy))
        gamma = torch.where(good, sy / (yv * yv).sum(1).clamp(min=1e-300), gamma)
        slot = (slot + 1) % history
        n_stored = min(n_stored + 1, history)
        rel = (f - f_new) / torch.clamp(f.abs(), min=1.0)
        x = torch.where(upd.unsqueeze(1), x_new, x)
        f = torch.where(upd, f_new, f)
        g = torch.where(upd.unsqueeze(1), g_new, g)
        n_iter += upd.long()
        small = upd & (rel <= ftol)
        met = small & (g.abs().amax(dim=1) <= gtol * torch.clamp(f.abs(), min=1.0))
        status[met] = STATUS.index("converged")
        status[small & ~met] = STATUS.index("stalled")
        active &= ~small
        first = False
    else:
        done = active & (g.abs().amax(dim=1) <= gtol * torch.clamp(f.abs(), min=1.0))
        status[done] = STATUS.index("converged")
    return LBFGSResult(x=x, f=f, grad=g, n_iter=n_iter, status=status, n_evals=n_evals)
