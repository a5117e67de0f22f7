"""R's number formatting: ``format(x, digits=)``, ``format.pval``, named-vector printing, ``strwrap``.

Written from R's documented behaviour of ``formatReal`` (R Internals; ``?format``, ``?print.default``):
each number needs the fewest significant digits (at most ``digits``) that show it to ``digits``
significant digits; a vector shares one layout (the maximum number of decimals any element needs);
fixed notation is used unless it is wider than scientific notation (``scipen = 0``).
"""
from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np

R_DIGITS = 7          # getOption("digits")
R_WIDTH = 80          # getOption("width")
DOUBLE_EPS = float(np.finfo(float).eps)


def _sig_parts(x: float, digits: int) -> tuple[int, int]:
    """(nsig, kpower) of |x| rounded to ``digits`` significant digits."""
    if x == 0 or not math.isfinite(x):
        return 1, 0
    mant, exp = f"{abs(x):.{digits - 1}e}".split("e")
    mant = mant.replace(".", "").rstrip("0")
    return max(1, len(mant)), int(exp)


def format_numbers(values: Iterable[float], digits: int = R_DIGITS) -> list[str]:
    """R's ``format(c(...), digits = digits)``: common layout, right-justified to a common width."""
    vals = [float(v) for v in values]
    finite = [v for v in vals if math.isfinite(v)]
    out: list[str]
    if finite:
        parts = [_sig_parts(v, digits) for v in finite]
        neg = any(v < 0 for v in finite)
        mxns = max(ns for ns, _ in parts)
        rgt = max(max(0, ns - kp - 1) for ns, kp in parts)
        left = max(max(1, kp + 1) for _, kp in parts)
        kps = [kp for _, kp in parts]
        exp_digits = 3 if any(abs(k) >= 100 for k in kps) else 2
        width_fixed = neg + left + (rgt + 1 if rgt else 0)
        width_sci = neg + (mxns + 1 if mxns > 1 else mxns) + 2 + exp_digits
        if width_fixed <= width_sci:
            fmt = lambda v: f"{v:.{rgt}f}"
        else:
            def fmt(v: float) -> str:
                s = f"{v:.{mxns - 1}e}"
                mant, e = s.split("e")
                sign, ee = e[0], e[1:].lstrip("0") or "0"
                return f"{mant}e{sign}{ee.rjust(exp_digits, '0')}"
    out = []
    for v in vals:
        if math.isnan(v):
            out.append("NaN")
        elif math.isinf(v):
            out.append("Inf" if v > 0 else "-Inf")
        else:
            s = fmt(v)
            if s.startswith("-") and float(s) == 0:
                s = s[1:]  # R prints -0 as 0
            out.append(s)
    width = max((len(s) for s in out), default=0)
    return [s.rjust(width) for s in out]


def format_number(x: float, digits: int = R_DIGITS) -> str:
    return format_numbers([x], digits)[0]


def format_pval(pv: float, digits: int = R_DIGITS - 2, eps: float = DOUBLE_EPS) -> str:
    """R's ``format.pval`` for one p-value."""
    if pv is None or (isinstance(pv, float) and math.isnan(pv)):
        return "NA"
    if pv < eps:
        d = max(1, digits - 2)
        sep = "" if d == 1 else " "
        return "<" + sep + format_number(eps, d)
    return format_number(pv, digits)


def strwrap(text: str, width: int = int(0.9 * R_WIDTH), prefix: str = "") -> list[str]:
    """R's ``strwrap``: greedy word wrap so that every line is shorter than ``width``."""
    words = text.split()
    lines: list[str] = []
    cur = ""
    for w in words:
        cand = w if not cur else cur + " " + w
        if cur and len(cand) >= width:
            lines.append(cur)
            cur = w
        else:
            cur = cand
    lines.append(cur)
    return [prefix + ln for ln in lines]


def format_named_vector(names: Sequence[str], values: Sequence[float], digits: int = R_DIGITS,
                        width: int = R_WIDTH) -> str:
    """R's ``print()`` of a named numeric vector: names over right-justified values, rows wrapped."""
    vals = format_numbers(values, digits)
    w = max([len(v) for v in vals] + [len(str(n)) for n in names])
    per_line = max(1, width // (w + 1))
    lines = []
    for start in range(0, len(vals), per_line):
        chunk = range(start, min(start + per_line, len(vals)))
        lines.append("".join(str(names[i]).rjust(w) + " " for i in chunk))
        lines.append("".join(vals[i].rjust(w) + " " for i in chunk))
    return "\n".join(lines)


def format_table(row_names: Sequence[str], columns: dict[str, Sequence], digits: int = R_DIGITS) -> str:
    """R's ``print.data.frame``/matrix layout: row names left-justified, columns right-justified.

    Numeric columns are formatted column-wise with ``digits`` significant digits (as R does);
    integer-valued integer columns print as integers; strings print as they are.
    """
    rn = [str(r) for r in row_names]
    rn_w = max([len(r) for r in rn] + [0])
    cols_txt = []
    for name, col in columns.items():
        col = list(col)
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in col):
            cells = [str(int(v)) for v in col]
        elif all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) for v in col):
            cells = [c.strip() for c in format_numbers(col, digits)]
        else:
            cells = [str(v) for v in col]
        w = max([len(name)] + [len(c) for c in cells])
        cols_txt.append([name.rjust(w)] + [c.rjust(w) for c in cells])
    header = " " * rn_w + "".join(" " + c[0] for c in cols_txt)
    lines = [header]
    for i, r in enumerate(rn):
        lines.append(r.ljust(rn_w) + "".join(" " + c[i + 1] for c in cols_txt))
    return "\n".join(lines)


def format_vector(values: Sequence, digits: int = R_DIGITS, quote: bool = False) -> str:
    """R's ``print()`` of an unnamed vector: ``[i]`` prefixes, a common width, 80 columns."""
    vals = ([f'"{v}"' for v in values] if quote else format_numbers(values, digits))
    n = len(vals)
    w = max(len(v) for v in vals)
    lab = len(f"[{n}]")
    per_line = max(1, (R_WIDTH - lab) // (w + 1))
    lines = []
    for start in range(0, n, per_line):
        chunk = vals[start:start + per_line]
        lines.append(f"[{start + 1}]".rjust(lab) + "".join(" " + (v.ljust(w) if quote else v.rjust(w))
                                                         for v in chunk))
    return "\n".join(lines)
