# Scans behind statcore.multitest.p_adjust.
#
# Every function takes p-values that the Python layer has already validated (finite, in [0, 1], no
# NaN), an ascending sort order `order` of them (any order of ties: the scans below give tied
# p-values the same adjusted value whatever their order), and writes the adjusted values into `out`
# at the original positions. They never allocate pandas objects, never raise user-facing errors.
#
# The arithmetic is written in the order R's stats::p.adjust evaluates it (e.g. BH is (n / i) * p,
# BY is ((q * n) / i) * p), so that results agree with R to the last bit, not only to rounding.

from libc.math cimport expm1, log1p, INFINITY

ctypedef Py_ssize_t intp


def step_up(const double[::1] p, const intp[::1] order, double n, double factor,
            double[::1] out):
    """BH / BY: out[o_k] = min(1, cummin_{j >= k} ((factor * n) / (j + 1)) * p[o_j])."""
    cdef intp m = p.shape[0], k, idx
    cdef double cur = INFINITY, v, fn = factor * n
    with nogil:
        for k in range(m - 1, -1, -1):
            idx = order[k]
            v = fn / <double>(k + 1) * p[idx]
            if v < cur:
                cur = v
            out[idx] = cur if cur < 1.0 else 1.0


def hochberg(const double[::1] p, const intp[::1] order, double n, double[::1] out):
    """Hochberg: out[o_k] = min(1, cummin_{j >= k} (n - j) * p[o_j])."""
    cdef intp m = p.shape[0], k, idx
    cdef double cur = INFINITY, v
    with nogil:
        for k in range(m - 1, -1, -1):
            idx = order[k]
            v = (n - <double>k) * p[idx]
            if v < cur:
                cur = v
            out[idx] = cur if cur < 1.0 else 1.0


def holm(const double[::1] p, const intp[::1] order, double n, double[::1] out):
    """Holm: out[o_k] = min(1, cummax_{j <= k} (n - j) * p[o_j])."""
    cdef intp m = p.shape[0], k, idx
    cdef double cur = 0.0, v
    with nogil:
        for k in range(m):
            idx = order[k]
            v = (n - <double>k) * p[idx]
            if v > cur:
                cur = v
            out[idx] = cur if cur < 1.0 else 1.0


def holm_sidak(const double[::1] p, const intp[::1] order, double n, double[::1] out):
    """Holm-Sidak step-down: cummax of 1 - (1 - p_(k))^(n - k), via expm1/log1p for small p."""
    cdef intp m = p.shape[0], k, idx
    cdef double cur = 0.0, v
    with nogil:
        for k in range(m):
            idx = order[k]
            v = -expm1((n - <double>k) * log1p(-p[idx]))
            if v > cur:
                cur = v
            out[idx] = cur if cur < 1.0 else 1.0


def hommel_sorted(const double[::1] p, double[::1] out):
    """Hommel (1988) adjusted p-values of ascending p (length n, R pads missing tests with 1s).

    Meijer, Krebs & Goeman (2019), Biometrical Journal 61:73: with the Simes p-values of the
    "top" sets, d_m = m min_{k=1..m} p_(n-m+k) / k, and their suffix maxima D_m = max_{m' >= m} d_m',
    Hommel's procedure at level a uses h(a) = max{m : D_m > a}, and the adjusted p-value of p_i is
    min_{m >= 0} max(D_{m+1}, m p_i)  (D_{n+1} = 0).
    d_m is a tangent query: p_j / (j - (n - m)) is the slope from (n - m, 0) to (j, p_j), minimised
    on the lower convex hull of the points j = n-m+1..n, which grows at its left end as m grows
    (monotone-chain stack, binary search for the tangent). The crossing index of the decreasing
    D_{m+1} and increasing m p_i moves monotonically with i. Total O(n log n) after the sort.
    """
    cdef intp n = p.shape[0], m, j, jn, top = -1, lo, hi, mid, a, b, ms, i
    cdef double q, dm, cand
    if n == 0:
        return
    cdef intp[::1] hull = _intp_buffer(n)
    cdef double[::1] D = _double_buffer(n + 2)
    with nogil:
        for m in range(1, n + 1):
            jn = n - m + 1                      # new leftmost point, 1-based position
            while top >= 1:
                a = hull[top]                   # current leftmost hull vertex
                b = hull[top - 1]
                # drop a unless it lies strictly below the chord from jn to b
                if (p[a - 1] - p[jn - 1]) * <double>(b - jn) >= (p[b - 1] - p[jn - 1]) * <double>(a - jn):
                    top -= 1
                else:
                    break
            top += 1
            hull[top] = jn
            q = <double>(n - m)
            # slopes from (q, 0) along the hull, left to right, fall then rise
            lo = 0
            hi = top
            while lo < hi:
                mid = (lo + hi) // 2
                a = hull[top - mid]
                b = hull[top - mid - 1]
                if p[a - 1] * (<double>b - q) <= p[b - 1] * (<double>a - q):
                    hi = mid
                else:
                    lo = mid + 1
            j = hull[top - lo]
            D[m] = (<double>m * p[j - 1]) / (<double>j - q)
        D[n + 1] = 0.0
        for m in range(n, 0, -1):
            if D[m + 1] > D[m]:
                D[m] = D[m + 1]
        ms = 0
        for i in range(n - 1, -1, -1):
            while <double>ms * p[i] < D[ms + 1]:
                ms += 1
            if ms == 0:
                cand = D[1]
            else:
                cand = <double>ms * p[i]
                if D[ms] < cand:
                    cand = D[ms]
            if cand < p[i]:
                cand = p[i]
            out[i] = cand


cdef intp[::1] _intp_buffer(intp n):
    import numpy as np
    return np.empty(n, dtype=np.intp)


cdef double[::1] _double_buffer(intp n):
    import numpy as np
    return np.empty(n, dtype=np.float64)


def harmonic_sum(Py_ssize_t n):
    """sum(1 / (1:n)) as R's sum() does it: double reciprocals accumulated in long double."""
    cdef long double acc = 0.0
    cdef Py_ssize_t k
    with nogil:
        for k in range(1, n + 1):
            acc += 1.0 / <double>k
    return <double>acc


# ------------------------------------------------------------------------------------------------
# Ascending stable argsort of values in [0, 1].
#
# Non-negative doubles order like their bit patterns, and in [0, 1] the top two bits are zero. So
# the 62 value bits, shifted up, with their lowest b bits replaced by the element's index
# (b = bits needed for n), make one uint64 key per element; numpy's sort of plain integer keys is
# several times faster than its argsort. Keys that share the kept value prefix may be misordered
# among themselves (values within a relative 2^-(62-b) of each other): a final pass re-sorts each
# run of equal prefixes by (value, index), so the order is exact and ties keep index order.
# ------------------------------------------------------------------------------------------------

from libc.stdint cimport uint64_t
from libc.string cimport memcpy
from libc.stdlib cimport free, malloc, qsort

cdef struct _pair:
    double v
    Py_ssize_t i

cdef int _cmp_pair(const void *a, const void *b) noexcept nogil:
    cdef const _pair *x = <const _pair *> a
    cdef const _pair *y = <const _pair *> b
    if x.v < y.v:
        return -1
    if x.v > y.v:
        return 1
    return -1 if x.i < y.i else (1 if x.i > y.i else 0)


def unit_keys(const double[::1] p, int bits, uint64_t[::1] keys):
    cdef Py_ssize_t n = p.shape[0], k
    cdef uint64_t u, mask = (<uint64_t> 1 << bits) - 1
    with nogil:
        for k in range(n):
            memcpy(&u, &p[k], 8)
            keys[k] = ((u << 2) & ~mask) | <uint64_t> k


def keys_to_order(const double[::1] p, const uint64_t[::1] keys, int bits, intp[::1] order):
    cdef Py_ssize_t n = p.shape[0], k, start, L
    cdef uint64_t mask = (<uint64_t> 1 << bits) - 1
    with nogil:
        for k in range(n):
            order[k] = <intp> (keys[k] & mask)
        start = 0
        while start < n:
            k = start + 1
            while k < n and (keys[k] >> bits) == (keys[start] >> bits):
                k += 1
            L = k - start
            if L > 1:
                _sort_run(p, order, start, L)
            start = k


cdef void _sort_run(const double[::1] p, intp[::1] order, Py_ssize_t start, Py_ssize_t L) noexcept nogil:
    cdef Py_ssize_t t
    cdef _pair *buf
    if L <= 32:  # short runs, the usual case: insertion sort by (value, index)
        _insertion(p, order, start, L)
        return
    buf = <_pair *> malloc(L * sizeof(_pair))
    if buf == NULL:  # cannot happen for sane n; fall back to the (slow, correct) insertion sort
        _insertion(p, order, start, L)
        return
    for t in range(L):
        buf[t].i = order[start + t]
        buf[t].v = p[buf[t].i]
    qsort(buf, L, sizeof(_pair), _cmp_pair)
    for t in range(L):
        order[start + t] = buf[t].i
    free(buf)


cdef void _insertion(const double[::1] p, intp[::1] order, Py_ssize_t start, Py_ssize_t L) noexcept nogil:
    cdef Py_ssize_t a, b
    cdef intp key_i
    cdef double key_v
    for a in range(start + 1, start + L):
        key_i = order[a]
        key_v = p[key_i]
        b = a - 1
        while b >= start and (p[order[b]] > key_v or (p[order[b]] == key_v and order[b] > key_i)):
            order[b + 1] = order[b]
            b -= 1
        order[b + 1] = key_i
