"""numba kernels of learncore.stereo: cost volumes, winner-take-all, semi-global aggregation and the
face rig's ray marcher. Pure loops over contiguous arrays that never validate. Helpers are
``register_jitable`` (compiled into their callers); the entry points are ``statcore.utils.lazy_njit``,
so numba is imported (and this module) only when a matcher or the rig runs."""
from __future__ import annotations

import numpy as np
from numba.extending import register_jitable

from statcore.utils import lazy_njit


@lazy_njit
def sad_volume(left, right, max_disp, half):
    """Mean absolute difference over (2 half + 1)^2 windows for disparities 0..max_disp-1:
    cost[y, x, d] (float32); +inf where x - d < 0. Windows are clipped at the image border and at
    column d (the mean over the pixels inside). Running column sums, updated row by row, keep the
    disparity axis innermost (contiguous)."""
    H, W = left.shape
    D = max_disp
    cost = np.empty((H, W, D), dtype=np.float32)
    col = np.zeros((W, D))
    rowsum = np.zeros(D)
    # the window rows of row 0: 0..half
    for yy in range(min(half + 1, H)):
        for x in range(W):
            for d in range(min(D, x + 1)):
                col[x, d] += abs(left[yy, x] - right[yy, x - d])
    for y in range(H):
        if y > 0:
            ya = y + half
            yr = y - half - 1
            if ya < H:
                for x in range(W):
                    for d in range(min(D, x + 1)):
                        col[x, d] += abs(left[ya, x] - right[ya, x - d])
            if yr >= 0:
                for x in range(W):
                    for d in range(min(D, x + 1)):
                        col[x, d] -= abs(left[yr, x] - right[yr, x - d])
        nrows = min(y + half + 1, H) - max(y - half, 0)
        for d in range(D):
            rowsum[d] = 0.0
        for x in range(min(half, W)):
            for d in range(D):
                rowsum[d] += col[x, d]
        for x in range(W):
            xa = x + half
            xr = x - half - 1
            if xa < W:
                for d in range(D):
                    rowsum[d] += col[xa, d]
            if xr >= 0:
                for d in range(D):
                    rowsum[d] -= col[xr, d]
            x1 = min(x + half + 1, W)
            for d in range(D):
                if d > x:
                    cost[y, x, d] = np.inf
                else:
                    x0 = max(x - half, d)
                    cost[y, x, d] = rowsum[d] / (nrows * (x1 - x0))
    return cost


@register_jitable
def _box_sum(img, half):
    H, W = img.shape
    c = np.zeros((H + 1, W + 1))
    for y in range(H):
        run = 0.0
        for x in range(W):
            run += img[y, x]
            c[y + 1, x + 1] = c[y, x + 1] + run
    out = np.empty((H, W))
    cnt = np.empty((H, W))
    for y in range(H):
        y0 = max(y - half, 0)
        y1 = min(y + half + 1, H)
        for x in range(W):
            x0 = max(x - half, 0)
            x1 = min(x + half + 1, W)
            out[y, x] = c[y1, x1] - c[y0, x1] - c[y1, x0] + c[y0, x0]
            cnt[y, x] = (y1 - y0) * (x1 - x0)
    return out, cnt


@lazy_njit
def zncc_volume(left, right, max_disp, half):
    """1 - ZNCC of (2 half + 1)^2 windows (0 for a perfect match, 2 for an inverted one) as a cost
    volume; +inf where x - d < 0; a flat window (no variance) costs 1 (no correlation)."""
    H, W = left.shape
    cost = np.full((H, W, max_disp), np.inf, dtype=np.float32)
    sl, n = _box_sum(left, half)
    sll, _ = _box_sum(left * left, half)
    sr, _ = _box_sum(right, half)
    srr, _ = _box_sum(right * right, half)
    ml = sl / n
    vl = np.maximum(sll / n - ml * ml, 0.0)
    mr = sr / n
    vr = np.maximum(srr / n - mr * mr, 0.0)
    prod = np.zeros((H, W))
    eps = 1e-12
    for d in range(max_disp):
        for y in range(H):
            for x in range(W):
                prod[y, x] = left[y, x] * right[y, x - d] if x >= d else 0.0
        slr, _ = _box_sum(prod, half)
        for y in range(H):
            for x in range(d + half, W):
                cov = slr[y, x] / n[y, x] - ml[y, x] * mr[y, x - d]
                den = np.sqrt(vl[y, x] * vr[y, x - d])
                if den > eps:
                    cost[y, x, d] = 1.0 - cov / den
                else:
                    cost[y, x, d] = 1.0
    return cost


@lazy_njit
def census_transform(img, hy, hx):
    """The census bit string of every pixel: bit k is 1 when the k-th neighbour of the (2 hy + 1) x
    (2 hx + 1) window is darker than the centre (pixels outside the image repeat the border)."""
    H, W = img.shape
    out = np.zeros((H, W), dtype=np.uint64)
    for y in range(H):
        for x in range(W):
            c = img[y, x]
            code = np.uint64(0)
            for dy in range(-hy, hy + 1):
                yy = min(max(y + dy, 0), H - 1)
                for dx in range(-hx, hx + 1):
                    if dy == 0 and dx == 0:
                        continue
                    xx = min(max(x + dx, 0), W - 1)
                    code = code << np.uint64(1)
                    if img[yy, xx] < c:
                        code = code | np.uint64(1)
            out[y, x] = code
    return out


@lazy_njit
def census_volume(cl, cr, max_disp, nbits):
    """Hamming distances of census codes, cost[y, x, d] (int16); nbits where x - d < 0."""
    H, W = cl.shape
    cost = np.empty((H, W, max_disp), dtype=np.int16)
    for y in range(H):
        for x in range(W):
            a = cl[y, x]
            for d in range(max_disp):
                if x >= d:
                    v = a ^ cr[y, x - d]
                    c = 0
                    while v:
                        v &= v - np.uint64(1)
                        c += 1
                    cost[y, x, d] = c
                else:
                    cost[y, x, d] = nbits
    return cost


@lazy_njit
def sgm_aggregate(cost, dirs, p1, p2):
    """Semi-global aggregation (Hirschmuller 2008, eq. 13-14): the sum over the path directions r of
    L_r(p, d) = C(p, d) + min(L_r(p - r, d), L_r(p - r, d -/+ 1) + P1, min_k L_r(p - r, k) + P2)
    - min_k L_r(p - r, k). ``dirs`` holds (dy, dx) rows; the result is int32 (H, W, D)."""
    H, W, D = cost.shape
    S = np.zeros((H, W, D), dtype=np.int32)
    prev = np.zeros((W, D), dtype=np.int32)
    cur = np.zeros((W, D), dtype=np.int32)
    prevmin = np.zeros(W, dtype=np.int32)
    curmin = np.zeros(W, dtype=np.int32)
    for r in range(dirs.shape[0]):
        dy = dirs[r, 0]
        dx = dirs[r, 1]
        for iy in range(H):
            y = iy if dy >= 0 else H - 1 - iy
            for ix in range(W):
                x = ix if dx >= 0 else W - 1 - ix
                py = y - dy
                px = x - dx
                if py < 0 or py >= H or px < 0 or px >= W:
                    m = np.int32(2147483647)
                    for d in range(D):
                        v = np.int32(cost[y, x, d])
                        cur[x, d] = v
                        if v < m:
                            m = v
                    curmin[x] = m
                else:
                    if dy == 0:
                        Lp = cur[px]
                        mp = curmin[px]
                    else:
                        Lp = prev[px]
                        mp = prevmin[px]
                    m = np.int32(2147483647)
                    for d in range(D):
                        best = Lp[d]
                        if d > 0 and Lp[d - 1] + p1 < best:
                            best = Lp[d - 1] + p1
                        if d < D - 1 and Lp[d + 1] + p1 < best:
                            best = Lp[d + 1] + p1
                        if mp + p2 < best:
                            best = mp + p2
                        v = np.int32(cost[y, x, d]) + best - mp
                        cur[x, d] = v
                        if v < m:
                            m = v
                    curmin[x] = m
                for d in range(D):
                    S[y, x, d] += cur[x, d]
            # the row just finished is the predecessor row of the next one
            for x in range(W):
                prevmin[x] = curmin[x]
                for d in range(D):
                    prev[x, d] = cur[x, d]
    return S


@lazy_njit
def wta(cost, subpixel):
    """Winner-take-all disparity of a cost volume (float64 (H, W)), refined by the parabola through
    the costs at d - 1, d, d + 1 when ``subpixel``; NaN where every cost is infinite."""
    H, W, D = cost.shape
    disp = np.full((H, W), np.nan)
    for y in range(H):
        for x in range(W):
            best = np.inf
            bd = -1
            for d in range(D):
                c = float(cost[y, x, d])
                if c < best:
                    best = c
                    bd = d
            if bd < 0:
                continue
            v = float(bd)
            if subpixel and 0 < bd < D - 1:
                cm = float(cost[y, x, bd - 1])
                cp = float(cost[y, x, bd + 1])
                if np.isfinite(cm) and np.isfinite(cp):
                    den = cm - 2.0 * best + cp
                    if den > 0:
                        v += 0.5 * (cm - cp) / den
            disp[y, x] = v
    return disp


@lazy_njit
def wta_right(cost):
    """Integer winner-take-all disparity of the right image from the left cost volume: the right
    pixel xr matches the left pixel xr + d, cost[y, xr + d, d] (Hirschmuller's fast right map)."""
    H, W, D = cost.shape
    disp = np.full((H, W), -1, dtype=np.int64)
    for y in range(H):
        for xr in range(W):
            best = np.inf
            for d in range(D):
                x = xr + d
                if x >= W:
                    break
                c = float(cost[y, x, d])
                if c < best:
                    best = c
                    disp[y, xr] = d
    return disp


@lazy_njit
def lr_invalidate(disp, disp_right, tol):
    """NaN where the left disparity and the right disparity at its match differ by more than tol."""
    H, W = disp.shape
    out = disp.copy()
    for y in range(H):
        for x in range(W):
            d = disp[y, x]
            if np.isnan(d):
                continue
            xr = int(np.floor(x - d + 0.5))
            if xr < 0 or xr >= W or disp_right[y, xr] < 0 or abs(disp_right[y, xr] - d) > tol:
                out[y, x] = np.nan
    return out


@register_jitable
def _head_depth(X, Y, par):
    """Depth of the head rig's surface at lateral position (X, Y) (mm): an ellipsoid's front with a
    nose and two eye recesses, in front of a background plane. par: zc, a, b, c, z_bg, nose_h,
    nose_sx, nose_sy, nose_y, eye_x, eye_y, eye_depth, eye_s, x0, y0."""
    zc, a, b, c, zbg = par[0], par[1], par[2], par[3], par[4]
    u = (X - par[13]) / a
    v = (Y - par[14]) / b
    q = 1.0 - u * u - v * v
    if q <= 0.0:
        return zbg
    xr = X - par[13]
    yr = Y - par[14]
    z = zc - c * np.sqrt(q)
    z -= par[5] * np.exp(-0.5 * ((xr / par[6]) ** 2 + ((yr - par[8]) / par[7]) ** 2))
    for s in (-1.0, 1.0):
        z += par[11] * np.exp(-0.5 * (((xr - s * par[9]) ** 2 + (yr - par[10]) ** 2) / par[12] ** 2))
    return min(z, zbg)


@register_jitable
def _texture(X, Y, freqs, phases, amps, par, pupil_r):
    """The surface's grey level at (X, Y): a sum of random plane waves, dark discs at the pupils."""
    v = 0.5
    for k in range(freqs.shape[0]):
        v += amps[k] * np.sin(freqs[k, 0] * X + freqs[k, 1] * Y + phases[k])
    for s in (-1.0, 1.0):
        dx = X - par[13] - s * par[9]
        dy = Y - par[14] - par[10]
        if dx * dx + dy * dy < pupil_r * pupil_r:
            v = 0.05 + 0.1 * v
    return v


@lazy_njit
def render_rig(H, W, f, cx, cy, cam_x, par, freqs, phases, amps, pupil_r, z_near, step, offsets):
    """Ray-march every pixel of a pinhole camera at (cam_x, 0, 0) looking down +Z to the first point
    where the ray is behind the surface (steps of ``step`` mm from ``z_near``), refined by 40
    bisections: the depth at the pixel centre, and the texture averaged over the sub-pixel
    ``offsets`` (rows (du, dv); the first must be (0, 0))."""
    depth = np.empty((H, W))
    img = np.zeros((H, W))
    zbg = par[4]
    ns = offsets.shape[0]
    for y in range(H):
        for x in range(W):
            for k in range(ns):
                a = (x + offsets[k, 0] - cx) / f
                b = (y + offsets[k, 1] - cy) / f
                z0 = z_near
                z1 = z_near
                hit = False
                while z1 < zbg:
                    z1 = z0 + step
                    if z1 >= _head_depth(cam_x + a * z1, b * z1, par):
                        hit = True
                        break
                    z0 = z1
                if not hit:
                    z0 = zbg - step
                    z1 = zbg + step
                for _ in range(48):
                    zm = 0.5 * (z0 + z1)
                    if zm >= _head_depth(cam_x + a * zm, b * zm, par):
                        z1 = zm
                    else:
                        z0 = zm
                z = 0.5 * (z0 + z1)
                if k == 0:
                    depth[y, x] = z
                img[y, x] += _texture(cam_x + a * z, b * z, freqs, phases, amps, par, pupil_r) / ns
    return depth, img


@lazy_njit
def head_depth(X, Y, par):
    """The rig's surface depth at one (X, Y), callable from Python."""
    return _head_depth(X, Y, par)
