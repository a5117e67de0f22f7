# Golden values of R ashr 2.2-65 ash() for tests/statcore/ebayes/test_ash.py.
# Run: R_LIBS=<library with ashr 2.2-65> Rscript ash_golden.R   (writes ash_golden.json here)
# control = list(eps = 0): mixsqp without its safeguard eps (ashr passes 1e-6), i.e. the exact
# penalised MLE of the mixture weights, which statcore computes (see ?statcore.ash).
library(ashr)
library(jsonlite)
stopifnot(packageVersion("ashr") == "2.2.65")
set.seed(20260512)
n <- 240
s <- exp(runif(n, log(0.3), log(3)))
beta <- ifelse(runif(n) < 0.6, 0, rnorm(n, 0.3, 2))
b <- beta + rnorm(n, 0, s)
ctl <- list(eps = 0)
cases <- list(
  list(name = "normal_fdr", mixcompdist = "normal", method = "fdr"),
  list(name = "normal_shrink", mixcompdist = "normal", method = "shrink"),
  list(name = "uniform_fdr", mixcompdist = "uniform", method = "fdr"),
  list(name = "uniform_shrink", mixcompdist = "uniform", method = "shrink"),
  list(name = "halfuniform_fdr", mixcompdist = "halfuniform", method = "fdr"),
  list(name = "halfuniform_shrink", mixcompdist = "halfuniform", method = "shrink"),
  list(name = "plusuniform_fdr", mixcompdist = "+uniform", method = "fdr"),
  list(name = "minusuniform_fdr", mixcompdist = "-uniform", method = "fdr"),
  list(name = "uniform_df5", mixcompdist = "uniform", method = "fdr", df = 5),
  list(name = "halfuniform_df3", mixcompdist = "halfuniform", method = "fdr", df = 3),
  list(name = "normal_grid", mixcompdist = "normal", method = "fdr", grid = c(0.25, 0.5, 1, 2, 4, 8)),
  list(name = "uniform_grid_nw3", mixcompdist = "uniform", method = "fdr", grid = c(0.5, 1, 2, 4, 8),
       nullweight = 3)
)
out <- list(betahat = b, sebetahat = s, cases = list())
for (cs in cases) {
  args <- list(b, s, mixcompdist = cs$mixcompdist, method = cs$method, control = ctl)
  if (!is.null(cs$df)) args$df <- cs$df
  if (!is.null(cs$grid)) args$mixsd <- cs$grid
  if (!is.null(cs$nullweight)) args$nullweight <- cs$nullweight
  a <- suppressWarnings(do.call(ash, args))
  g <- a$fitted_g
  r <- a$result
  rec <- list(mixcompdist = cs$mixcompdist, method = cs$method, df = cs$df, grid = cs$grid,
              nullweight = cs$nullweight, pi0 = get_pi0(a), loglik = a$loglik, pi = g$pi,
              PosteriorMean = r$PosteriorMean, PosteriorSD = r$PosteriorSD, lfdr = r$lfdr,
              lfsr = r$lfsr, qvalue = r$qvalue, svalue = r$svalue)
  if (inherits(g, "normalmix")) { rec$mean <- g$mean; rec$sd <- g$sd } else { rec$a <- g$a; rec$b <- g$b }
  if (cs$name %in% c("normal_fdr", "uniform_df5")) {
    idx <- 1:40
    ci <- ashci(a, level = 0.95, betaindex = idx, tol = 1e-12)
    rec$ci_index <- idx; rec$ci_low <- ci[idx, 1]; rec$ci_high <- ci[idx, 2]
  }
  out$cases[[cs$name]] <- rec
}
# R's default (control$eps = 1e-6) for one case, compared at the size of that perturbation
a <- ash(b, s, mixcompdist = "normal")
out$default_eps <- list(pi0 = get_pi0(a), loglik = a$loglik, PosteriorMean = a$result$PosteriorMean,
                        lfsr = a$result$lfsr)
writeLines(toJSON(out, digits = I(17), auto_unbox = TRUE, null = "null"), "ash_golden.json")
