# Golden values for tests/statcore/modelsel/test_modelsel_r.py: R's logLik/AIC/BIC and lmtest::lrtest.
# Run from this folder: Rscript modelsel_golden.R > modelsel_golden.json   (R 4.x, lmtest)
# The same code (MODELS/LRTESTS) is run live by the tests when Rscript is available.
d <- read.csv("modelsel_data.csv", comment.char = "#")
# derived columns (the tests derive them the same way): zero weights, binomial trials, frequencies
d$w0 <- d$w; d$w0[1:4] <- 0
d$tr <- d$yc + 1; d$s <- floor(d$tr * d$x1 / 2.1)
d$fw <- 1 + (seq_len(nrow(d)) %% 3)
MODELS <- list(
  lm1 = lm(y ~ x1, data = d),
  lm2 = lm(y ~ x1 + x2, data = d),
  lm_w = lm(y ~ x1 + x2, data = d, weights = w),
  lm0 = lm(y ~ 1, data = d),
  glm_gauss = glm(y ~ x1 + x2, family = gaussian, data = d),
  glm_binom1 = glm(yb ~ x1, family = binomial, data = d),
  glm_binom2 = glm(yb ~ x1 + x2, family = binomial, data = d),
  glm_probit = glm(yb ~ x1 + x2, family = binomial(link = "probit"), data = d),
  glm_pois = glm(yc ~ x1 + x2, family = poisson, data = d),
  glm_pois_w = glm(yc ~ x1 + x2, family = poisson, data = d, weights = w),
  glm_gamma = glm(yg ~ x1 + x2, family = Gamma(link = "log"), data = d),
  glm_gamma_inv = glm(yg ~ x1 + x2, family = Gamma, data = d),
  glm_gamma_w = glm(yg ~ x1 + x2, family = Gamma(link = "log"), data = d, weights = w),
  glm_invgauss = glm(yg ~ x1 + x2, family = inverse.gaussian(link = "log"), data = d),
  lm_w0 = lm(y ~ x1 + x2, data = d, weights = w0),
  glm_binom_prop = glm(s / tr ~ x1 + x2, family = binomial, data = d, weights = tr),
  glm_binom_cbind = glm(cbind(s, tr - s) ~ x1 + x2, family = binomial, data = d),
  lm_expanded = lm(y ~ x1 + x2, data = d[rep(seq_len(nrow(d)), d$fw), ])
)
LRTESTS <- list(lm = c("lm1", "lm2"), binom = c("glm_binom1", "glm_binom2"))
num <- function(x) sprintf("%.17g", x)
cat("{\n")
for (i in seq_along(MODELS)) {
  m <- MODELS[[i]]; ll <- logLik(m)
  cat(sprintf('  "%s": {"logLik": %s, "df": %s, "nobs": %s, "AIC": %s, "BIC": %s},\n', names(MODELS)[i],
      num(ll), num(attr(ll, "df")), num(nobs(m)), num(AIC(m)), num(BIC(m))))
}
for (i in seq_along(LRTESTS)) {
  p <- LRTESTS[[i]]
  t <- lmtest::lrtest(MODELS[[p[1]]], MODELS[[p[2]]])
  cat(sprintf('  "lrtest_%s": {"Chisq": %s, "Df": %s, "p": %s},\n', names(LRTESTS)[i],
      num(t$Chisq[2]), num(t$Df[2]), num(t[["Pr(>Chisq)"]][2])))
}
aic_tab <- AIC(MODELS$lm0, MODELS$lm1, MODELS$lm2)
cat(sprintf('  "aic_table": {"df": [%s], "AIC": [%s]}\n', paste(num(aic_tab$df), collapse = ", "),
    paste(num(aic_tab$AIC), collapse = ", ")))
cat("}\n")
