# Golden values of the distance covariance family from R energy (statcore.indep.dcor).
# Run from the repository root:  Rscript tests/golden/indep/dcor_golden.R
# Writes tests/golden/indep/dcor_golden.json: the data sets (17 significant digits) and R's answers.
suppressPackageStartupMessages(library(energy))
library(jsonlite)
set.seed(20240615)

mv <- local({  # multivariate, continuous
  n <- 25
  x <- matrix(rnorm(n * 3), n)
  y <- cbind(x[, 1]^2 + rnorm(n, sd = 0.5), rnorm(n))
  z <- cbind(x[, 2] + rnorm(n), rexp(n))
  list(x = x, y = y, z = z)
})
ties <- local({  # univariate, discrete with many ties
  n <- 30
  x <- matrix(sample(0:3, n, replace = TRUE), n)
  y <- matrix((x[, 1] %% 2) + sample(0:1, n, replace = TRUE), n)
  z <- matrix(sample(0:2, n, replace = TRUE), n)
  list(x = x, y = y, z = z)
})
uni <- local({  # univariate, continuous (statcore's O(n log n) path at index 1)
  n <- 40
  x <- matrix(rt(n, df = 3), n)
  y <- matrix(sin(2 * x[, 1]) + rnorm(n, sd = 0.4), n)
  z <- matrix(x[, 1] + rnorm(n), n)
  list(x = x, y = y, z = z)
})
mixed <- local({  # univariate x, multivariate y with a constant column and ties
  n <- 20
  x <- matrix(round(rnorm(n), 1), n)
  y <- cbind(x[, 1] + rnorm(n), 7, sample(1:3, n, replace = TRUE))
  z <- matrix(rnorm(n * 2), n)
  list(x = x, y = y, z = z)
})
sets <- list(mv = mv, ties = ties, uni = uni, mixed = mixed)
# six decimals: the JSON then holds every value exactly as R used it
sets <- lapply(sets, function(d) lapply(d, function(m) round(m, 6)))

printout <- function(obj) paste(capture.output(print(obj)), collapse = "\n")
out <- list(energy_version = as.character(packageVersion("energy")), R_version = R.version.string, sets = list())
for (nm in names(sets)) {
  d <- sets[[nm]]
  x <- d$x; y <- d$y; z <- d$z
  res <- list(x = x, y = y, z = z, by_index = list())
  for (idx in c(1, 0.5, 1.5)) {
    t1 <- dcor.test(x, y, index = idx, R = 19)
    t2 <- dcov.test(x, y, index = idx, R = 19)
    p1 <- capture.output(print(t1))
    res$by_index[[as.character(idx)]] <- list(
      index = idx, dcov = dcov(x, y, index = idx), dcor = dcor(x, y, index = idx),
      dcor_test_statistic = unname(t1$statistic), dcor_test_estimates = as.list(t1$estimates),
      dcov_test_statistic = unname(t2$statistic), dcov_test_estimate = unname(t2$estimate),
      # the printout without the p-value (R's permutation p-value is random)
      dcor_test_print = paste(sub(", p-value [=<] .*$", "", p1), collapse = "\n"))
  }
  tt <- dcorT.test(x, y)
  res$bcdcor <- unname(bcdcor(x, y))
  res$dcovU <- unname(dcovU(x, y))
  res$pdcor <- unname(pdcor(x, y, z))
  res$pdcov <- unname(pdcov(x, y, z))
  res$dcorT <- list(statistic = unname(tt$statistic), df = unname(tt$parameter), p_value = unname(tt$p.value),
                    estimate = unname(tt$estimate), print = printout(tt))
  pt <- pdcor.test(x, y, z, R = 19)
  res$pdcor_test_statistic <- unname(pt$statistic)
  out$sets[[nm]] <- res
}
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, matrix = "rowmajor", pretty = TRUE),
           "tests/golden/indep/dcor_golden.json")
