/* Permutation inner products of distance covariance with one side recomputed from its data.
 *
 * T_b = 2 * sum_{i<j} A[i, j] * |y[s_b(i)] - y[s_b(j)]|   (Euclidean norm over the q columns of y)
 *
 * A is the n x n double-centred distance matrix of the other sample (row-major); its rows and
 * columns sum to zero, so T_b equals sum_ij A_ij B_{s_b(i) s_b(j)} with B the double-centred matrix
 * of y: the centring of the permuted side is not needed. Instead of gathering B[s(i), s(j)] from a
 * second n x n matrix (a random access per pair, memory-bound), the distances are recomputed from the
 * permuted data held transposed (q x n, a few hundred KiB, in cache): q subtractions and FMAs and one
 * square root per pair, four pairs per vector instruction. G permutations share each row of A, so A
 * streams from memory once per G permutations.
 *
 * Each T_b is summed in a fixed order that depends on n and q only (not on G, the chunking or the
 * threads). The vector code uses GCC's generic vector extension; the kernel is compiled twice
 * (x86-64-v3: AVX2 + FMA, and the baseline) and the loader picks the clone the CPU runs, so the last
 * bits can differ between machines with and without FMA.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

typedef double sc_v4d __attribute__((vector_size(32)));

#define SC_LD4(dst, ptr) memcpy(&(dst), (ptr), sizeof(sc_v4d))

#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__))
#define SC_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define SC_CLONES
#endif

/* yT: scratch of G * q * n doubles; out: G sums. perms: G rows of n indices (s_b). */
SC_CLONES
static void sc_dperm_group(const double *A, int64_t n, const double *y, int64_t q,
                           const int64_t *perms, int64_t G, double *yT, double *out) {
    for (int64_t g = 0; g < G; g++) {
        const int64_t *s = perms + g * n;
        double *t = yT + g * q * n;
        for (int64_t j = 0; j < n; j++) {
            const double *src = y + s[j] * q;
            for (int64_t d = 0; d < q; d++) t[d * n + j] = src[d];
        }
        out[g] = 0.0;
    }
    for (int64_t i = 0; i + 1 < n; i++) {
        const double *a = A + i * n;
        for (int64_t g = 0; g < G; g++) {
            const double *t = yT + g * q * n;
            sc_v4d acc0 = {0.0, 0.0, 0.0, 0.0}, acc1 = acc0;
            int64_t j = i + 1;
            for (; j + 8 <= n; j += 8) {
                sc_v4d s0 = {0.0, 0.0, 0.0, 0.0}, s1 = s0, r0, r1, a0, a1;
                for (int64_t d = 0; d < q; d++) {
                    const double *row = t + d * n;
                    double c = row[i];
                    SC_LD4(r0, row + j);
                    SC_LD4(r1, row + j + 4);
                    r0 -= c;
                    r1 -= c;
                    s0 += r0 * r0;
                    s1 += r1 * r1;
                }
                for (int k = 0; k < 4; k++) {
                    s0[k] = __builtin_sqrt(s0[k]);
                    s1[k] = __builtin_sqrt(s1[k]);
                }
                SC_LD4(a0, a + j);
                SC_LD4(a1, a + j + 4);
                acc0 += a0 * s0;
                acc1 += a1 * s1;
            }
            acc0 += acc1;
            double tot = (acc0[0] + acc0[1]) + (acc0[2] + acc0[3]);
            for (; j < n; j++) {
                double s2 = 0.0;
                for (int64_t d = 0; d < q; d++) {
                    double v = t[d * n + j] - t[d * n + i];
                    s2 += v * v;
                }
                tot += a[j] * __builtin_sqrt(s2);
            }
            out[g] += tot;
        }
    }
    for (int64_t g = 0; g < G; g++) out[g] *= 2.0;
}
