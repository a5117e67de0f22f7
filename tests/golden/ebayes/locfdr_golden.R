# Golden values for statcore.locfdr: R locfdr 1.1-8 locfdr() (built from its public source into a
# scratch library; R 4.2.2). Run from this folder:
#   R_LIBS=<library holding locfdr 1.1-8> Rscript locfdr_golden.R
# writes locfdr_golden.json. z-values are drawn here (seeded), rounded to 4 decimals and stored;
# per-unit fdr to 10 significant digits, everything else to 15.
suppressMessages(library(locfdr))
stopifnot(packageVersion("locfdr") == "1.1.8")
library(jsonlite)

g17 <- function(v) v       # written with 15 significant digits (toJSON, digits = 15)
g10 <- function(v) signif(v, 10)   # per-unit fdr: 10 significant digits, to keep the file small

run <- function(z, args) {
  msgs <- character(0)
  w <- tryCatch(withCallingHandlers(do.call(locfdr, c(list(z, plot = 0), args)),
                           warning = function(w) { msgs <<- c(msgs, conditionMessage(w))
                                                   invokeRestart("muffleWarning") }),
                error = function(e) conditionMessage(e))
  if (is.character(w)) return(list(args = args, warnings = msgs, error = w))
  fp0 <- w$fp0
  list(args = args, warnings = msgs,
       fp0 = lapply(split(fp0, row(fp0)), g17), fp0_rows = rownames(fp0), fp0_cols = colnames(fp0),
       Efdr = g17(unname(w$Efdr)), z2 = g17(w$z.2),
       mat_fdr = g17(w$mat[, "fdr"]), mat_f = g17(w$mat[, "f"]), mat_lfdrse = g17(w$mat[, 10]),
       fdr = g10(w$fdr), fp0_print = capture.output(print(fp0)))
}

cases <- list()
set.seed(1); z <- round(rnorm(1000), 4)
cases$null_only <- list(z = z, runs = lapply(0:3, function(nt) run(z, list(nulltype = nt))))
set.seed(2); z <- round(c(rnorm(2700), rnorm(300, 2.5)), 4)
cases$shifted <- list(z = z, runs = lapply(0:3, function(nt) run(z, list(nulltype = nt))))
set.seed(3); z <- round(c(rnorm(4400, 0.2, 1.2), rnorm(400, -3), rnorm(200, 3.5, 0.6)), 4)
cases$asymmetric <- list(z = z, runs = list(run(z, list(nulltype = 1)), run(z, list(nulltype = 3))))
set.seed(4); z <- round(c(rnorm(1350, -0.1, 0.9), rnorm(150, 2.8)), 4)
cases$options <- list(z = z, runs = list(run(z, list(bre = 60, df = 5, pct0 = c(0.2, 0.7), nulltype = 2)),
                                         run(z, list(bre = seq(-3, 3, length = 50), df = 4, pct0 = 0.3))))
set.seed(5); z <- round(c(rnorm(1000), rnorm(400, 4, 0.5)), 4)
cases$misfit <- list(z = z, runs = list(run(z, list(df = 2, nulltype = 2))))

set.seed(2); z <- round(c(runif(1500, -2, 2), rnorm(500, 0, 2)), 4)
cases$cm_failed <- list(z = z, runs = lapply(0:2, function(nt) run(z, list(nulltype = nt))))

out <- list(r_version = R.version.string, locfdr_version = as.character(packageVersion("locfdr")),
            cases = cases)
writeLines(toJSON(out, digits = I(15), auto_unbox = TRUE, na = "null"), "locfdr_golden.json")
