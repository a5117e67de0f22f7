"""The result of :func:`statcore.cit.pc_skeleton`: the skeleton, its separating sets, p-values,
printout and picture."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from .._r.rformat import R_DIGITS, format_numbers, format_table, strwrap
from .._result import Result

__all__ = ["SkeletonResult"]


def _test_label(test, test_args: dict) -> str:
    name = getattr(test, "__name__", type(test).__name__) if callable(test) else test
    if not test_args:
        return str(name)
    args = ", ".join(f"{k} = {v!r}" if isinstance(v, str) else f"{k} = {v}" for k, v in test_args.items())
    return f"{name} ({args})"


@dataclass(frozen=True, eq=False, repr=False)
class SkeletonResult(Result):
    """The skeleton learned by :func:`pc_skeleton`.

    Attributes
    ----------
    nodes : list
        Node names, in the order of ``data``'s columns or of ``groups``.
    adjacency : pandas.DataFrame
        0/1 symmetric adjacency matrix (1: the nodes are adjacent).
    sepsets : dict
        ``(a, b) -> tuple`` of node names: the set that separated ``a`` and ``b`` (first in the
        order of the nodes), for every removed edge; see :meth:`sepset`.
    p_max : pandas.DataFrame
        For every pair, the largest p-value of the tests run on it (pcalg's ``pMax``); a removed
        edge has ``p_max >= alpha``. NaN on the diagonal.
    tests : pandas.DataFrame
        Every test run: ``x``, ``y``, ``cond`` (tuple of node names), ``order``, ``p_value``.
    groups : dict
        Node name -> list of column labels.
    alpha, test, max_cond, max_order
        The level, a label of the test and its arguments, the limit on the conditioning set size,
        and the largest level run.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from statcore.cit import pc_skeleton
    >>> rng = np.random.default_rng(1)
    >>> a = rng.standard_normal(300); b = a + rng.standard_normal(300); c = b + rng.standard_normal(300)
    >>> res = pc_skeleton(pd.DataFrame({"A": a, "B": b, "C": c}), alpha=0.01, test="gcm")
    >>> res
    SkeletonResult(nodes=3, edges=2, tests=6, alpha=0.01, test='gcm')
    >>> res.to_frame()[["var1", "var2", "adjacent"]]
      var1 var2  adjacent
    0    A    B      True
    1    A    C     False
    2    B    C      True
    """

    nodes: tuple
    adjacency: Any
    sepsets: Mapping
    p_max: Any
    tests: Any
    groups: Mapping
    alpha: float
    test: str
    max_cond: int | None
    max_order: int
    _names_to_index: dict = field(default_factory=dict, repr=False)

    @classmethod
    def _build(cls, design, adj, p_max, sepsets, records, alpha, test, test_args, max_cond, max_order):
        import pandas as pd

        names = design.names
        index = pd.Index(names)
        adjacency = pd.DataFrame(adj.astype(np.int64), index=index, columns=index)
        pmax = pd.DataFrame(p_max, index=index, columns=index)
        seps = {(names[i], names[j]): tuple(names[k] for k in S) for (i, j), S in sepsets.items()}
        tests = pd.DataFrame({
            "x": [names[r[0]] for r in records],
            "y": [names[r[1]] for r in records],
            "cond": [tuple(names[k] for k in r[2]) for r in records],
            "order": np.array([r[3] for r in records], dtype=np.int64),
            "p_value": np.array([r[4] for r in records], dtype=np.float64),
        })
        groups = {name: tuple(design.labels[k] for k in cols) for name, cols in zip(names, design.cols)}
        return cls(tuple(names), adjacency, seps, pmax, tests, groups, alpha, _test_label(test, test_args), max_cond,
                   max_order, {name: k for k, name in enumerate(names)})

    # ---- queries -------------------------------------------------------------------------------
    def _index(self, node) -> int:
        try:
            return self._names_to_index[node]
        except (KeyError, TypeError):
            raise ValueError(f"{node!r} is not a node; nodes are {list(self.nodes)!r}") from None

    def edges(self) -> list:
        """The undirected edges ``(a, b)``, ``a`` before ``b`` in node order."""
        a = self.adjacency.to_numpy()
        m = len(self.nodes)
        return [(self.nodes[i], self.nodes[j]) for i in range(m) for j in range(i + 1, m) if a[i, j]]

    @property
    def n_edges(self) -> int:
        return int(np.triu(self.adjacency.to_numpy(), 1).sum())

    def is_adjacent(self, a, b) -> bool:
        return bool(self.adjacency.iat[self._index(a), self._index(b)])

    def sepset(self, a, b):
        """The separating set of ``a`` and ``b`` (tuple of node names), or None if they are adjacent."""
        i, j = sorted((self._index(a), self._index(b)))
        if i == j:
            raise ValueError(f"a and b must be different nodes, got {a!r} twice")
        return self.sepsets.get((self.nodes[i], self.nodes[j]))

    def to_networkx(self):
        """The skeleton as an undirected ``networkx.Graph`` with ``p_max`` on the edges."""
        import networkx as nx

        g = nx.Graph()
        g.add_nodes_from(self.nodes)
        for a, b in self.edges():
            g.add_edge(a, b, p_max=float(self.p_max.at[a, b]))
        return g

    # ---- output --------------------------------------------------------------------------------
    def to_frame(self):
        """One row per pair of nodes ``var1``, ``var2`` (the naming table's pairwise columns): ``adjacent``, ``p_max``, ``sepset`` (None when adjacent)."""
        import pandas as pd

        m = len(self.nodes)
        rows = []
        for i in range(m):
            for j in range(i + 1, m):
                a, b = self.nodes[i], self.nodes[j]
                rows.append((a, b, bool(self.adjacency.iat[i, j]), float(self.p_max.iat[i, j]),
                             self.sepsets.get((a, b))))
        return pd.DataFrame(rows, columns=["var1", "var2", "adjacent", "p_max", "sepset"])

    def summary(self, *, digits: int = R_DIGITS, max_print: int = 30) -> str:
        """The printout: test and level, counts, then the edges kept and removed (largest p-value,
        separating set), at most ``max_print`` rows each."""
        m = len(self.nodes)
        n_groups = sum(len(c) > 1 for c in self.groups.values())
        lines = ["", "\tPC-stable skeleton", ""]
        lines += strwrap(f"test: {self.test}, alpha = {format_numbers([self.alpha], digits)[0]}")
        node_txt = f"nodes: {m}" + (f" ({n_groups} of them groups of columns)" if n_groups else "")
        lines.append(f"{node_txt}, edges: {self.n_edges} of {m * (m - 1) // 2} pairs")
        lines.append(f"tests: {len(self.tests)}, max. order: {max(self.max_order, 0)}"
                     + ("" if self.max_cond is None else f" (max_cond = {self.max_cond})"))
        frame = self.to_frame()
        for title, part in (("Edges (largest p-value of the tests run):", frame[frame["adjacent"]]),
                            ("Removed edges (largest p-value and separating set):", frame[~frame["adjacent"]])):
            lines += ["", title]
            if part.empty:
                lines.append("<none>")
                continue
            shown = part.iloc[:max_print]
            cols = {"var1": [str(v) for v in shown["var1"]], "var2": [str(v) for v in shown["var2"]],
                    "p.max": [float(v) for v in shown["p_max"]]}
            if title.startswith("Removed"):
                cols["sepset"] = ["{" + ", ".join(map(str, s)) + "}" for s in shown["sepset"]]
            lines.append(format_table([str(k + 1) for k in range(len(shown))], cols, digits=4))
            if len(part) > max_print:
                lines.append(f" ... {len(part) - max_print} more rows; see to_frame()")
        lines.append("")
        return "\n".join(lines) + "\n"

    def _repr_parts(self):
        return [("nodes", len(self.nodes)), ("edges", self.n_edges), ("tests", len(self.tests)),
                ("alpha", self.alpha), ("test", self.test)]

    def _plot(self, ax=None, pos: Mapping | None = None, node_size: float = 0.09, cmap: str = "viridis_r",
              labels: bool = True):
        """The skeleton on a circle (or at ``pos``, node -> (x, y)); edge colour and width by -log10 p_max.

        Grouped nodes are drawn larger and labelled with their number of columns. Returns the Axes.
        """
        import matplotlib.pyplot as plt
        from matplotlib.collections import LineCollection
        from matplotlib.patches import Circle

        if ax is None:
            fig, ax = plt.subplots(figsize=(6, 6))
        else:
            fig = ax.figure
        m = len(self.nodes)
        if pos is None:
            theta = np.pi / 2 - 2 * np.pi * np.arange(m) / m
            xy = np.column_stack([np.cos(theta), np.sin(theta)])
        else:
            missing = [v for v in self.nodes if v not in pos]
            if missing:
                raise ValueError(f"pos has no position for nodes {missing!r}")
            xy = np.array([pos[v] for v in self.nodes], dtype=float)
        edges = self.edges()
        if edges:
            ij = np.array([(self._index(a), self._index(b)) for a, b in edges])
            strength = -np.log10(np.clip([self.p_max.at[a, b] for a, b in edges], 1e-300, 1.0))
            top = max(float(np.max(strength)), -np.log10(self.alpha))
            lc = LineCollection(xy[ij], cmap=cmap, linewidths=1.0 + 3.0 * strength / top, zorder=1)
            lc.set_array(strength)
            lc.set_clim(-np.log10(self.alpha), top)
            ax.add_collection(lc)
            fig.colorbar(lc, ax=ax, shrink=0.6, label="-log10 max p-value")
        sizes = [len(self.groups[v]) for v in self.nodes]
        for k, v in enumerate(self.nodes):
            r = node_size * (1.0 + 0.35 * (sizes[k] > 1))
            ax.add_patch(Circle(xy[k], r, facecolor="white", edgecolor="black", zorder=2))
            if labels:
                text = f"{v}\n({sizes[k]})" if sizes[k] > 1 else str(v)
                ax.text(*xy[k], text, ha="center", va="center", fontsize=8, zorder=3)
        pad = 2 * node_size
        ax.set_xlim(xy[:, 0].min() - pad, xy[:, 0].max() + pad)
        ax.set_ylim(xy[:, 1].min() - pad, xy[:, 1].max() + pad)
        ax.set_aspect("equal")
        ax.set_axis_off()
        ax.set_title(f"PC-stable skeleton: {self.n_edges} edges, alpha = {self.alpha:g}")
        return ax
