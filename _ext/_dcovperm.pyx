# Permutation inner products of distance covariance with the permuted side recomputed from its data
# (see _dcovperm.h for the arithmetic). Called by statcore.indep._dcor._Permuter on validated,
# C-contiguous float64 / int64 arrays; releases the GIL so that chunks of permutations run on threads.

from libc.stdint cimport int64_t
from libc.stdlib cimport malloc, free

cdef extern from "_dcovperm.h" nogil:
    void sc_dperm_group(const double *A, int64_t n, const double *y, int64_t q,
                        const int64_t *perms, int64_t G, double *yT, double *out)


def perm_dist_inner(const double[:, ::1] A, const double[:, ::1] y, const int64_t[:, ::1] perms,
                    double[::1] out, int group=4):
    """out[b] = 2 sum_{i<j} A[i, j] |y[s_b(i)] - y[s_b(j)]| for each row s_b of ``perms``."""
    cdef int64_t n = A.shape[0], q = y.shape[1], nperm = perms.shape[0], b, g
    cdef double *buf
    if A.shape[1] != n or y.shape[0] != n or perms.shape[1] != n or out.shape[0] != nperm or group < 1:
        raise ValueError("perm_dist_inner: inconsistent shapes")
    if nperm == 0 or n < 2:
        out[:] = 0.0
        return
    buf = <double *> malloc(group * q * n * sizeof(double))
    if buf == NULL:
        raise MemoryError()
    try:
        with nogil:
            b = 0
            while b < nperm:
                g = group if nperm - b >= group else nperm - b
                sc_dperm_group(&A[0, 0], n, &y[0, 0], q, &perms[b, 0], g, buf, &out[b])
                b += g
    finally:
        free(buf)
