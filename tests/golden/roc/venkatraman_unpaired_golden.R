# Golden values of Venkatraman's unpaired test from R pROC 1.18.0 (statcore.roc_test(paired=False,
# method="venkatraman")). Run from the repository root:  Rscript tests/golden/roc/venkatraman_unpaired_golden.R
# Writes tests/golden/roc/venkatraman_unpaired_golden.json: the two samples of each set, E (17
# significant digits), the permutation p-value (boot.n = 2000) and the printout.
suppressPackageStartupMessages(library(pROC))
library(jsonlite)
set.seed(20261203)

make <- function(n0, n1, m0, m1, shift1, shift2, digits) {
  y1 <- sample(rep(c(0, 1), c(n0, n1)))
  y2 <- sample(rep(c(0, 1), c(m0, m1)))
  list(y1 = y1, x1 = round(rnorm(n0 + n1) + shift1 * y1, digits),   # ties from rounding
       y2 = y2, x2 = round(rnorm(m0 + m1) + shift2 * y2, digits))
}
sets <- list(
  equal = make(60, 40, 60, 40, 1.0, 0.4, 1),      # same sizes: pROC's mixing proportion is the pooled one
  unequal = make(70, 50, 45, 25, 0.8, 0.8, 1),
  coarse = make(25, 35, 30, 20, 0.8, 0.3, 0),     # a handful of distinct values: heavy ties
  large_second = make(15, 10, 80, 70, 1.2, 0.2, 2), # mixing proportion (10 + 70) / (2 * 25) > 1
  mp_one = make(10, 10, 50, 30, 1.0, 0.5, 1),       # mixing proportion 1: tied p's averaged by approxfun, E = 0
  tiny = make(3, 2, 4, 3, 1.0, 0.5, 0)
)

printout <- function(obj) paste(capture.output(print(obj)), collapse = "\n")

answers <- lapply(sets, function(d) {
  roc1 <- roc(d$y1, d$x1, quiet = TRUE)
  roc2 <- roc(d$y2, d$x2, quiet = TRUE)
  set.seed(1)
  t <- suppressWarnings(roc.test(roc1, roc2, method = "venkatraman", paired = FALSE, boot.n = 2000,
                                 progress = "none"))
  list(direction = c(roc1$direction, roc2$direction),
       statistic = sprintf("%.17g", t$statistic),  # a string: all 17 digits (jsonlite writes 15)
       p_value = t$p.value, print = printout(t))
})

out <- list(pROC_version = as.character(packageVersion("pROC")), R_version = R.version.string,
            sets = sets, answers = answers)
write(toJSON(out, digits = NA, auto_unbox = TRUE, pretty = TRUE), "tests/golden/roc/venkatraman_unpaired_golden.json")
