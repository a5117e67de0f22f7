# Golden values of ROC analysis from R pROC (statcore.roc, auc, auc_ci, roc_test).
# Run from the repository root:  Rscript tests/golden/roc/roc_golden.R
# Writes tests/golden/roc/roc_golden.json: the data sets and pROC's answers (17 significant digits).
suppressPackageStartupMessages(library(pROC))
library(jsonlite)
set.seed(20261203)

make <- function(n0, n1, shift1, shift2, digits) {
  y <- sample(rep(c(0, 1), c(n0, n1)))
  list(y = y,
       x1 = round(rnorm(n0 + n1) + shift1 * y, digits),   # ties from rounding
       x2 = round(rnorm(n0 + n1) + shift2 * y, digits),
       x3 = round(rnorm(n0 + n1) - 0.8 * y, digits))       # controls higher: direction ">"
}
sets <- list(
  ties = make(70, 50, 1.0, 0.5, 1),
  coarse = make(25, 35, 0.8, 0.9, 0),       # a handful of distinct values: heavy ties
  small = make(9, 6, 1.2, 0.3, 2),
  large = make(400, 300, 0.6, 0.4, 2)
)

printout <- function(obj) paste(capture.output(print(obj)), collapse = "\n")
num <- function(x) unname(as.numeric(x))

answers <- lapply(sets, function(d) {
  r1 <- roc(d$y, d$x1, quiet = TRUE)
  r2 <- roc(d$y, d$x2, quiet = TRUE)
  r3 <- roc(d$y, d$x3, quiet = TRUE)
  roc1 <- r1; roc2 <- r2
  pa <- function(r, b, f, corr) num(auc(r, partial.auc = b, partial.auc.focus = f, partial.auc.correct = corr))
  t_p <- suppressWarnings(roc.test(roc1, roc2, method = "delong"))  # explicit: pROC picks the bootstrap for curves of different direction
  t_u <- suppressWarnings(roc.test(roc1, roc2, method = "delong", paired = FALSE))
  t_less <- suppressWarnings(roc.test(roc1, roc2, method = "delong", alternative = "less", conf.level = 0.9))
  t_greater <- suppressWarnings(roc.test(roc1, roc2, method = "delong", alternative = "greater"))
  set.seed(1)
  t_v <- suppressWarnings(roc.test(roc1, roc2, method = "venkatraman", boot.n = 2000, progress = "none"))
  set.seed(1)
  t_b <- roc.test(roc1, roc2, method = "bootstrap", boot.n = 2000, progress = "none")
  list(
    direction = c(r1$direction, r2$direction, r3$direction),
    auc = c(num(r1$auc), num(r2$auc), num(r3$auc)),
    thresholds1 = r1$thresholds, sensitivities1 = r1$sensitivities, specificities1 = r1$specificities,
    thresholds3 = r3$thresholds, sensitivities3 = r3$sensitivities, specificities3 = r3$specificities,
    var_delong = c(var(r1), var(r2), var(r3)),
    ci_delong95 = num(ci.auc(r1, method = "delong")),
    ci_delong90 = num(ci.auc(r3, method = "delong", conf.level = 0.9)),
    pauc = list(
      sp_1_08 = c(pa(r1, c(1, 0.8), "sp", FALSE), pa(r1, c(1, 0.8), "sp", TRUE)),
      sp_09_06 = c(pa(r2, c(0.9, 0.6), "sp", FALSE), pa(r2, c(0.6, 0.9), "sp", TRUE)),
      se_1_08 = c(pa(r1, c(1, 0.8), "se", FALSE), pa(r1, c(1, 0.8), "se", TRUE)),
      se_095_07 = c(pa(r3, c(0.95, 0.7), "se", FALSE), pa(r3, c(0.95, 0.7), "se", TRUE))
    ),
    test_paired = list(statistic = num(t_p$statistic), p_value = t_p$p.value, conf_int = num(t_p$conf.int),
                       print = printout(t_p)),
    test_unpaired = list(statistic = num(t_u$statistic), df = num(t_u$parameter), p_value = t_u$p.value,
                         print = printout(t_u)),
    test_less = list(statistic = num(t_less$statistic), p_value = t_less$p.value, conf_int = num(t_less$conf.int)),
    test_greater = list(statistic = num(t_greater$statistic), p_value = t_greater$p.value),
    venkatraman = list(statistic = num(t_v$statistic), p_value = t_v$p.value, print = printout(t_v)),
    bootstrap = list(statistic = num(t_b$statistic), p_value = t_b$p.value, print = printout(t_b))
  )
})

# labels as strings, levels given in the order (case first in sort order)
lab <- sets$small
ylab <- ifelse(lab$y == 1, "healthy", "sick")       # sorted: healthy < sick
r_lab <- roc(ylab, lab$x1, levels = c("sick", "healthy"), quiet = TRUE)
labels <- list(y = ylab, x = lab$x1, levels = c("sick", "healthy"), direction = r_lab$direction,
               auc = num(r_lab$auc), print = printout(r_lab))

out <- list(pROC_version = as.character(packageVersion("pROC")), R_version = R.version.string,
            sets = sets, answers = answers, labels = labels)
write(toJSON(out, digits = NA, auto_unbox = TRUE, pretty = TRUE), "tests/golden/roc/roc_golden.json")
