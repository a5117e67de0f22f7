# Golden values of R knockoff 0.3.6 (and corpcor's cov.shrink, which knockoff's create.second_order
# calls) for statcore.knockoffs. Only the deterministic pieces: the random parts of knockoffs cannot
# match R's RNG. Run with R 4.2.2 and knockoff 0.3.6 built into a scratch library (tests/golden/README.md):
#   R_LIBS=/work/rlib Rscript knockoff_golden.R     # writes knockoff_golden.json
suppressPackageStartupMessages({library(knockoff); library(jsonlite); library(corpcor)})
stopifnot(as.character(packageVersion("knockoff")) == "0.3.6")
ns <- asNamespace("knockoff")
num <- function(x) unname(as.numeric(x))
mat <- function(m) unname(lapply(seq_len(nrow(m)), function(i) num(m[i, ])))

# --- knockoff.threshold on several W (offset 1 = knockoff+, 0 = knockoff) ----------------------
set.seed(31)
Ws <- list(
  c(3, -1, 2.5, 0, 4, -0.5, 1.2, 2, 5, -2, 0.7, 3.3),
  c(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, -0.5),
  round(rnorm(50, 0.8, 1.5), 3),
  c(-1, -2, 0, 0, 0.5),
  c(2, 2, 2, -2, 1, 1, -1, 3, 3, 3, 3, 3)
)
thr <- list()
for (i in seq_along(Ws)) for (fdr in c(0.1, 0.2, 0.5)) for (off in c(0, 1)) {
  t <- knockoff.threshold(Ws[[i]], fdr = fdr, offset = off)
  thr[[length(thr) + 1]] <- list(W = Ws[[i]], fdr = fdr, offset = off,
                                   threshold = if (is.finite(t)) t else "Inf")
}

# --- S-matrices on three Sigmas -----------------------------------------------------------------
ar1 <- function(p, rho) rho^abs(outer(1:p, 1:p, "-"))
S1 <- ar1(10, 0.5)
S2 <- diag(c(1, 2, 0.5, 4, 1.5, 3)) %*% (0.3 + 0.7 * diag(6)) %*% diag(c(1, 2, 0.5, 4, 1.5, 3))
S2 <- sqrt(S2 * (S2 > 0))                      # a covariance (non-unit diagonal), equicorrelation 0.3
S2 <- (S2 + t(S2)) / 2
set.seed(7)
A <- matrix(rnorm(8 * 12), 12, 8)
S3 <- crossprod(A) / 12 + 0.2 * diag(8)        # a generic covariance, p = 8
sig <- list(ar1_05_p10 = S1, equicor03_p6_scaled = S2, wishart_p8 = S3)
smat <- lapply(sig, function(S) list(Sigma = mat(S), equi = num(create.solve_equi(S)),
                                     sdp = num(create.solve_sdp(S))))

# --- fixed-X knockoffs: the deterministic parts ------------------------------------------------
set.seed(11)
n <- 30; p <- 6
X <- matrix(rnorm(n * p), n, p) %*% chol(ar1(p, 0.4))
Xn <- ns$normc(X, center = FALSE)              # columns scaled to unit norm, not centred
G <- crossprod(Xn)
fixed <- list(X = mat(X), X_normalised = mat(Xn))
for (m in c("equi", "sdp")) {
  s <- if (m == "equi") rep(min(2 * min(eigen(G, symmetric = TRUE)$values), 1), p) else {
    s <- create.solve_sdp(G); s[s <= 1e-5] <- 0; s }
  Gi <- solve(G)
  set.seed(1)
  kv <- create.fixed(X, method = m)            # randomize = FALSE
  fixed[[m]] <- list(s = num(s), mean_part = mat(Xn - Xn %*% Gi %*% diag(s)),
                     CtC = mat(2 * diag(s) - diag(s) %*% Gi %*% diag(s)),
                     XkXk = mat(crossprod(kv$Xk)), XXk = mat(crossprod(kv$X, kv$Xk)))
}

# --- statistics on a fixed (X, Xk, y) ------------------------------------------------------------
set.seed(5)
n <- 80; p <- 5
Xs <- matrix(rnorm(n * p), n, p)
Xks <- 0.6 * Xs + 0.8 * matrix(rnorm(n * p), n, p)
beta <- c(1.5, 0, -1, 0, 0.5)
ys <- drop(Xs %*% beta + rnorm(n))
b <- lm.fit(cbind(Xs, Xks), ys)$coefficients  # stat.ols_coefdiff is not in knockoff 0.3.6: lm.fit
ols_w <- abs(b[1:p]) - abs(b[(p + 1):(2 * p)])
set.seed(2)
lsm <- stat.lasso_lambdasmax(Xs, Xks, ys)      # the swap is random, the path is swap-invariant
stats <- list(X = mat(Xs), Xk = mat(Xks), y = num(ys), ols_coefdiff = num(ols_w),
              lasso_lambdasmax = num(lsm))

# --- corpcor::cov.shrink (create.second_order's shrinkage covariance) ---------------------------
set.seed(3)
Xc <- matrix(rnorm(15 * 10), 15, 10) %*% chol(ar1(10, 0.6)) %*% diag(seq(0.5, 5, 0.5))
cs <- cov.shrink(Xc, verbose = FALSE)
shrink <- list(X = mat(Xc), cov_shrink = mat(matrix(as.numeric(cs), 10)),
               lambda = attr(cs, "lambda"), lambda_var = attr(cs, "lambda.var"))

out <- list(versions = list(R = R.version.string, knockoff = as.character(packageVersion("knockoff")),
                            corpcor = as.character(packageVersion("corpcor"))),
            threshold = thr, smatrix = smat, fixed = fixed, statistics = stats, cov_shrink = shrink)
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE), "knockoff_golden.json")
