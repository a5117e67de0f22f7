# Golden values of the two-sample energy test from R energy (statcore.energy_test).
# Run from the repository root:  Rscript tests/golden/twosample/etest_golden.R
# Writes tests/golden/twosample/etest_golden.json: the data sets (17 significant digits), R's
# E-statistic (eqdist.e and eqdist.etest) and R's printout of eqdist.etest.
suppressPackageStartupMessages(library(energy))
library(jsonlite)
set.seed(20261203)

sets <- list(
  mv = list(x = matrix(rnorm(30 * 3), 30), y = matrix(rnorm(20 * 3, mean = 0.4), 20)),
  uni = list(x = matrix(rexp(25), 25), y = matrix(rexp(40, rate = 2), 40)),
  ties = list(x = matrix(sample(0:3, 24, replace = TRUE), 12), y = matrix(sample(0:3, 18, replace = TRUE), 9)),
  unequal = list(x = matrix(rt(7 * 5, df = 3), 7), y = matrix(rnorm(33 * 5), 33))
)
out <- list(energy_version = as.character(packageVersion("energy")), R_version = R.version.string, sets = list())
for (name in names(sets)) {
  s <- sets[[name]]
  n1 <- nrow(s$x); n2 <- nrow(s$y)
  r <- eqdist.etest(rbind(s$x, s$y), sizes = c(n1, n2), R = 199)
  out$sets[[name]] <- list(x = s$x, y = s$y, statistic = unname(eqdist.e(rbind(s$x, s$y), c(n1, n2))),
                           etest_statistic = unname(r$statistic), p_value = r$p.value,
                           print = paste(capture.output(print(r)), collapse = "\n"))
}
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, pretty = TRUE), "tests/golden/twosample/etest_golden.json")
