"""pc_skeleton (PC-stable with grouped nodes) and the causal-learn adapter.

Correctness is checked against (i) a d-separation oracle: with a perfect test the PC skeleton is
the DAG's skeleton (Spirtes, Glymour & Scheines 2000, Thm 5.1); (ii) a plain transcription of
Colombo & Maathuis (2014, Alg. 4.1) fed with arbitrary (hash-based) p-values, and causal-learn's
stable skeleton on the same p-values; (iii) causal-learn's PC with fisherz on linear Gaussian data.
"""
from __future__ import annotations

import hashlib
from itertools import combinations

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from statcore.cit import SkeletonResult, gcm_test, pc_skeleton


# ----------------------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------------------

def linear_sem(dag: nx.DiGraph, n: int, rng, order=None) -> pd.DataFrame:
    """Linear Gaussian data on a DAG with edge weights of size 0.5-1 and random signs."""
    order = list(nx.topological_sort(dag)) if order is None else order
    cols = {}
    for v in order:
        x = rng.standard_normal(n)
        for u in dag.predecessors(v):
            x += rng.choice([-1.0, 1.0]) * rng.uniform(0.5, 1.0) * cols[u]
        cols[v] = x
    return pd.DataFrame({v: cols[v] for v in sorted(dag.nodes)})


def random_dag(m: int, prob: float, rng) -> nx.DiGraph:
    g = nx.DiGraph()
    names = [f"X{k}" for k in range(m)]
    g.add_nodes_from(names)
    for i, j in combinations(range(m), 2):
        if rng.uniform() < prob:
            g.add_edge(names[i], names[j])
    return g


def skeleton_set(edges) -> set:
    return {frozenset(e) for e in edges}


def dsep_oracle(dag):
    def oracle(x, y, z):
        cond = set() if z is None else set(z.columns)
        return float(nx.is_d_separator(dag, set(x.columns), set(y.columns), cond))
    return oracle


def hash_pvalue(a, b, S, alpha, keep=0.08, salt=""):
    """A deterministic pseudo-random p-value of the unordered pair (a, b) and the set S.

    p >= alpha with probability ``keep``, so that a good share of edges survives each level.
    """
    key = f"{salt}|{min(a, b)}|{max(a, b)}|{sorted(S)}".encode()
    u = int.from_bytes(hashlib.sha256(key).digest()[:8], "big") / 2.0 ** 64
    return float(u * alpha / (1.0 - keep))


def reference_pc_stable(m: int, pfun, alpha: float) -> set:
    """Colombo & Maathuis (2014), Alg. 4.1 (skeleton phase), written out literally."""
    adj = {i: set(range(m)) - {i} for i in range(m)}
    level = 0
    while True:
        a = {i: set(adj[i]) for i in range(m)}   # frozen for the whole level
        if all(len(a[i] - {j}) < level for i in range(m) for j in adj[i]):
            break
        for i in range(m):
            for j in sorted(a[i]):
                if j not in adj[i] or len(a[i] - {j}) < level:
                    continue
                for S in combinations(sorted(a[i] - {j}), level):
                    if pfun(i, j, S) >= alpha:
                        adj[i].discard(j)
                        adj[j].discard(i)
                        break
        level += 1
    return {frozenset((i, j)) for i in range(m) for j in adj[i]}


def chain_collider_data(n=800, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n)
    y = 0.8 * x + rng.standard_normal(n)
    z = 0.8 * y + rng.standard_normal(n)
    chain = pd.DataFrame({"X": x, "Y": y, "Z": z})
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    c = 0.8 * a + 0.8 * b + rng.standard_normal(n)
    collider = pd.DataFrame({"X": a, "Y": b, "Z": c})
    return chain, collider


# ----------------------------------------------------------------------------------------------
# small graphs with real tests
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("test", ["gcm", "rpcit", "parcor"])
def test_chain_recovered(test):
    chain, _ = chain_collider_data()
    res = pc_skeleton(chain, alpha=0.01, test=test, seed=1)
    assert res.edges() == [("X", "Y"), ("Y", "Z")]
    assert res.sepset("X", "Z") == ("Y",)
    assert res.sepset("Z", "X") == ("Y",)
    assert res.sepset("X", "Y") is None
    assert res.p_max.at["X", "Z"] >= 0.01 > res.p_max.at["X", "Y"]


@pytest.mark.parametrize("test", ["gcm", "rpcit", "parcor"])
def test_collider_recovered(test):
    _, collider = chain_collider_data()
    res = pc_skeleton(collider, alpha=0.01, test=test, seed=1)
    assert res.edges() == [("X", "Z"), ("Y", "Z")]
    # a collider is separated by the empty set: the unshielded triple X - Z - Y is a v-structure
    assert res.sepset("X", "Y") == ()
    assert res.max_order == 1


def test_pvalues_are_the_tests_pvalues():
    """Every entry of the tests table is the p-value of the test run directly on the data."""
    chain, _ = chain_collider_data(n=300, seed=3)
    res = pc_skeleton(chain, alpha=0.01, test="gcm")
    for _, row in res.tests.iterrows():
        z = chain[list(row["cond"])] if row["cond"] else None
        direct = gcm_test(chain[row["x"]], chain[row["y"]], z).p_value
        assert row["p_value"] == pytest.approx(direct, rel=1e-10, abs=1e-300)
    pmax = res.tests.assign(pair=[frozenset(t) for t in zip(res.tests.x, res.tests.y)]).groupby("pair").p_value.max()
    for pair, value in pmax.items():
        a, b = sorted(pair)
        assert res.p_max.at[a, b] == value == res.p_max.at[b, a]


def module_data(n=600, size=6, seed=0):
    """A module-level network A -> B -> C -> D of gene modules (D a single gene).

    Each module is a vector; a module's genes are a linear function of its parent module's genes
    plus noise with a module factor (genes of a module co-vary). Conditional independence holds
    between the vectors: A and C given B, B and D given C.
    """
    rng = np.random.default_rng(seed)

    def noise(d):
        return np.outer(rng.standard_normal(n), rng.uniform(0.5, 1.0, d)) + rng.standard_normal((n, d))

    def effect(parent, d):
        w = rng.standard_normal((parent.shape[1], d)) / np.sqrt(parent.shape[1])
        return parent @ w / parent.std(axis=0).mean()

    a = noise(size)
    b = effect(a, size) + noise(size)
    c = effect(b, size) + noise(size)
    d = effect(c, 1) + rng.standard_normal((n, 1))
    cols = {f"{m}{g}": block[:, g] for m, block in (("A", a), ("B", b), ("C", c)) for g in range(size)}
    cols["D"] = d[:, 0]
    data = pd.DataFrame(cols)
    groups = {m: [f"{m}{g}" for g in range(size)] for m in "ABC"}
    groups["D"] = ["D"]
    return data, groups


@pytest.mark.parametrize("test,args", [("gcm", {"kind": "max"}), ("rpcit", {"k": 20}),
                                       ("rpcit", {"k": 20, "aggregate": "maxboot"})])
def test_grouped_nodes(test, args):
    data, groups = module_data()
    res = pc_skeleton(data, alpha=0.01, test=test, groups=groups, seed=2, **args)
    assert res.nodes == ("A", "B", "C", "D")
    assert res.edges() == [("A", "B"), ("B", "C"), ("C", "D")]
    assert res.sepset("A", "C") == ("B",)
    assert res.sepset("B", "D") == ("C",)
    assert list(res.groups["A"]) == groups["A"]
    assert set(res.tests.order) == {0, 1}  # after level 1 no node has two other neighbours


@pytest.mark.parametrize("regression", ["ols", "ridge"])
def test_residuals_computed_once_per_node_and_conditioning_set(monkeypatch, regression):
    import statcore.cit._regress as regress

    calls = []
    original = regress.fit_residualizer

    def counting(v, z, *args, **kwargs):
        calls.append((v.shape[1], 0 if z is None else z.shape[1]))
        return original(v, z, *args, **kwargs)

    monkeypatch.setattr(regress, "fit_residualizer", counting)
    data, groups = module_data(n=300, size=3)
    # the quadratic form draws nothing, so its p-values can be compared exactly
    res = pc_skeleton(data, test="gcm", groups=groups, regression=regression, kind="quadratic")
    needed = {(v, S) for x, y, S in zip(res.tests.x, res.tests.y, res.tests.cond) for v in (x, y)}
    if regression == "ols":  # one fit per conditioning set serves every node
        assert len(calls) == len(set(res.tests.cond)) < len(needed)
    else:  # the GCV penalty depends on the response: one fit per (node, S)
        assert len(calls) == len(needed) < 2 * len(res.tests)
    # the cached residuals are those of a direct regression: the p-values are gcm_test's own
    for _, row in res.tests.sample(6, random_state=0).iterrows():
        x, y = data[groups[row["x"]]], data[groups[row["y"]]]
        z = data[[c for v in row["cond"] for c in groups[v]]] if row["cond"] else None
        direct = gcm_test(x, y, z, regression=regression, kind="quadratic").p_value
        assert row["p_value"] == pytest.approx(direct, rel=1e-8, abs=1e-300)


def test_grouped_nodes_by_position_on_arrays():
    data, groups = module_data(n=400, size=3)
    pos = {k: [data.columns.get_loc(c) for c in v] for k, v in groups.items()}
    a = pc_skeleton(data, test="gcm", groups=groups, seed=0)
    b = pc_skeleton(data.to_numpy(), test="gcm", groups=pos, seed=0)
    assert a.edges() == b.edges()
    assert np.allclose(a.tests.p_value, b.tests.p_value)


def test_rpcit_seed_and_n_jobs_do_not_change_the_answer():
    data, groups = module_data(n=200, size=3, seed=5)
    one = pc_skeleton(data, test="rpcit", groups=groups, k=10, seed=11)
    again = pc_skeleton(data, test="rpcit", groups=groups, k=10, seed=11)
    import joblib

    # threads: the batching and merging of a level are what is tested; processes cost seconds to start
    with joblib.parallel_config(backend="threading"):
        two = pc_skeleton(data, test="rpcit", groups=groups, k=10, seed=11, n_jobs=2)
    other = pc_skeleton(data, test="rpcit", groups=groups, k=10, seed=12)
    assert not np.array_equal(one.tests.p_value, other.tests.p_value)
    pd.testing.assert_frame_equal(one.tests, again.tests)
    pd.testing.assert_frame_equal(one.tests, two.tests)
    assert one.edges() == two.edges()


@pytest.mark.slow
def test_n_jobs_with_worker_processes():
    """joblib's default (process) backend: the tester and its data travel to the workers."""
    data, groups = module_data(n=200, size=3, seed=6)
    one = pc_skeleton(data, test="gcm", groups=groups, kind="max", B=99, seed=3)
    two = pc_skeleton(data, test="gcm", groups=groups, kind="max", B=99, seed=3, n_jobs=2)
    pd.testing.assert_frame_equal(one.tests, two.tests)


def test_progress_bar(capsys):
    pytest.importorskip("tqdm")
    chain, _ = chain_collider_data(n=200)
    quiet = pc_skeleton(chain, test="gcm")
    assert "order 0" not in capsys.readouterr().err  # not a terminal: no bar by default
    shown = pc_skeleton(chain, test="gcm", progress=True)
    assert "order 0" in capsys.readouterr().err
    pd.testing.assert_frame_equal(quiet.tests, shown.tests)


def test_max_cond_limits_the_order():
    chain, _ = chain_collider_data()
    res = pc_skeleton(chain, test="gcm", max_cond=0)
    assert res.edges() == [("X", "Y"), ("X", "Z"), ("Y", "Z")]
    assert set(res.tests.order) == {0}
    assert res.max_order == 0


# ----------------------------------------------------------------------------------------------
# oracles: the algorithm itself
# ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(6))
def test_dseparation_oracle_gives_the_dag_skeleton(seed):
    rng = np.random.default_rng(seed)
    dag = random_dag(8, 0.35, rng)
    data = pd.DataFrame(rng.standard_normal((10, 8)), columns=sorted(dag.nodes))
    res = pc_skeleton(data, alpha=0.5, test=dsep_oracle(dag))
    assert skeleton_set(res.edges()) == skeleton_set(dag.to_undirected().edges())
    for (a, b), S in res.sepsets.items():
        assert nx.is_d_separator(dag, {a}, {b}, set(S))


def test_oracle_result_does_not_depend_on_column_order():
    rng = np.random.default_rng(7)
    dag = random_dag(9, 0.4, rng)
    names = sorted(dag.nodes)
    data = pd.DataFrame(rng.standard_normal((10, 9)), columns=names)
    ref = pc_skeleton(data, alpha=0.5, test=dsep_oracle(dag))
    perm = list(rng.permutation(names))
    res = pc_skeleton(data[perm], alpha=0.5, test=dsep_oracle(dag))
    assert skeleton_set(res.edges()) == skeleton_set(ref.edges())


@pytest.mark.parametrize("salt", ["a", "b", "c", "d"])
def test_matches_literal_pc_stable_on_arbitrary_pvalues(salt):
    """Any p-value function, even one no distribution could produce, gives Alg. 4.1's skeleton."""
    m, alpha = 7, 0.05
    names = [f"X{k}" for k in range(m)]
    data = pd.DataFrame(np.random.default_rng(0).standard_normal((10, m)), columns=names)

    def pfun(x, y, z):
        S = [] if z is None else [int(c[1:]) for c in z.columns]
        return hash_pvalue(int(x.columns[0][1:]), int(y.columns[0][1:]), S, alpha, salt=salt)

    res = pc_skeleton(data, alpha=alpha, test=pfun)
    want = reference_pc_stable(m, lambda i, j, S: hash_pvalue(i, j, S, alpha, salt=salt), alpha)
    got = {frozenset(int(v[1:]) for v in e) for e in res.edges()}
    assert got == want
    assert res.max_order >= 2  # the p-values keep enough edges for deeper levels to matter
    for (a, b), S in res.sepsets.items():
        assert hash_pvalue(int(a[1:]), int(b[1:]), [int(s[1:]) for s in S], alpha, salt=salt) >= alpha


# ----------------------------------------------------------------------------------------------
# causal-learn
# ----------------------------------------------------------------------------------------------

def test_agrees_with_causallearn_stable_skeleton_on_arbitrary_pvalues():
    cit = pytest.importorskip("causallearn.utils.cit")
    from causallearn.utils.PCUtils.SkeletonDiscovery import skeleton_discovery

    m, alpha = 8, 0.05

    class HashTest(cit.CIT_Base):
        def __init__(self, data, **kwargs):
            super().__init__(data, **kwargs)
            self.check_cache_method_consistent("statcore_hash_test", "none")

        def __call__(self, X, Y, condition_set=None):
            return hash_pvalue(int(X), int(Y), [int(s) for s in condition_set or ()], alpha, salt="cl")

    data = np.random.default_rng(0).standard_normal((10, m))
    cg = skeleton_discovery(data, alpha, HashTest(data), stable=True, show_progress=False)
    theirs = {frozenset((i, j)) for i in range(m) for j in range(i + 1, m) if cg.G.graph[i, j] != 0}
    res = pc_skeleton(data, alpha=alpha,
                      test=lambda x, y, z: hash_pvalue(int(x.columns[0][1:]) - 1, int(y.columns[0][1:]) - 1,
                                                       [] if z is None else [int(c[1:]) - 1 for c in z.columns],
                                                       alpha, salt="cl"))
    ours = {frozenset(int(v[1:]) - 1 for v in e) for e in res.edges()}
    assert ours == theirs


@pytest.mark.parametrize("seed", [0, 1])
def test_agrees_with_causallearn_pc_fisherz(seed):
    pytest.importorskip("causallearn")
    from causallearn.search.ConstraintBased.PC import pc

    rng = np.random.default_rng(seed)
    dag = random_dag(12, 0.25, rng)
    data = linear_sem(dag, 500, rng)
    cg = pc(data.to_numpy(), 0.01, "fisherz", show_progress=False)
    theirs = (cg.G.graph != 0).astype(np.int64)
    res = pc_skeleton(data, alpha=0.01, test="parcor", parcor="fisher")
    # the same p-values (Fisher's z of the partial correlation), so the same skeleton
    np.testing.assert_array_equal(res.adjacency.to_numpy(), theirs)
    # the linear GCM is a different test of the same hypotheses: at most 5% of the pairs may differ
    gcm = pc_skeleton(data, alpha=0.01, test="gcm")
    assert np.triu(gcm.adjacency.to_numpy() != theirs, 1).sum() <= 0.05 * 66


def test_causallearn_adapter_runs_pc():
    pytest.importorskip("causallearn")
    from causallearn.search.ConstraintBased.PC import pc
    from causallearn.utils.cit import CIT

    from statcore.cit._causallearn import register_causallearn_tests

    names = register_causallearn_tests()
    assert names == ["statcore_rpcit", "statcore_gcm", "statcore_parcor"]
    chain, _ = chain_collider_data(n=500)
    x = chain.to_numpy()
    cg = pc(x, 0.01, "statcore_gcm", show_progress=False)
    np.testing.assert_array_equal((cg.G.graph != 0).astype(int), [[0, 1, 0], [1, 0, 1], [0, 1, 0]])
    # the p-values are gcm_test's
    test = CIT(x, "statcore_gcm")
    assert test(0, 2, [1]) == pytest.approx(gcm_test(x[:, 0], x[:, 2], x[:, [1]]).p_value, rel=1e-12)
    assert test(2, 0, (1,)) == test(0, 2, [1])
    # keyword arguments of pc reach the test; the same seed gives the same answer
    a = CIT(x, "statcore_rpcit", regression="ridge", seed=3)(0, 2, [1])
    b = CIT(x, "statcore_rpcit", regression="ridge", seed=3)(0, 2, [1])
    assert a == b
    with pytest.raises(TypeError, match="prefix"):
        register_causallearn_tests(prefix=3)


def test_causallearn_adapter_matches_pc_skeleton():
    pytest.importorskip("causallearn")
    from causallearn.search.ConstraintBased.PC import pc

    from statcore.cit._causallearn import register_causallearn_tests

    register_causallearn_tests()
    rng = np.random.default_rng(4)
    dag = random_dag(10, 0.3, rng)
    data = linear_sem(dag, 400, rng)
    cg = pc(data.to_numpy(), 0.01, "statcore_gcm", show_progress=False)
    res = pc_skeleton(data, alpha=0.01, test="gcm")
    # both are PC-stable on the same p-values; causal-learn removes at p > alpha, we at p >= alpha
    np.testing.assert_array_equal(res.adjacency.to_numpy(), (cg.G.graph != 0).astype(np.int64))


# ----------------------------------------------------------------------------------------------
# output
# ----------------------------------------------------------------------------------------------

def test_printing_frame_and_plot():
    data, groups = module_data(n=300, size=3)
    res = pc_skeleton(data, test="gcm", groups=groups)
    text = str(res)
    assert "PC-stable skeleton" in text
    assert "test: gcm, alpha = 0.01" in text
    assert "nodes: 4 (3 of them groups of columns), edges: 3 of 6 pairs" in text
    assert "{B}" in text
    assert res.summary(max_print=1).count("more rows") == 2
    frame = res.to_frame()
    assert list(frame.columns) == ["var1", "var2", "adjacent", "p_max", "sepset"]
    assert len(frame) == 6 and frame.adjacent.sum() == 3
    assert "<table" in res._repr_html_()
    assert "edges=3" in repr(res)
    g = res.to_networkx()
    assert skeleton_set(g.edges) == skeleton_set(res.edges())
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = res.plot()
    assert len(ax.figure.axes) == 2  # graph and colour bar
    ax2 = res.plot(pos={v: (k, k % 2) for k, v in enumerate(res.nodes)})
    plt.close(ax.figure)
    plt.close(ax2.figure)
    with pytest.raises(ValueError, match="pos"):
        res.plot(pos={"A": (0, 0)})
    with pytest.raises(ValueError, match="not a node"):
        res.sepset("A", "nope")
    with pytest.raises(ValueError, match="different"):
        res.sepset("A", "A")
    assert isinstance(res, SkeletonResult)


def test_array_input_names_and_inputs_not_modified():
    chain, _ = chain_collider_data(n=300)
    x = chain.to_numpy()
    before = x.copy()
    res = pc_skeleton(x, test="gcm")
    assert res.nodes == ("V1", "V2", "V3")
    assert res.edges() == [("V1", "V2"), ("V2", "V3")]
    np.testing.assert_array_equal(x, before)
    frame = chain.copy()
    pc_skeleton(frame, test="gcm")
    pd.testing.assert_frame_equal(frame, chain)


# ----------------------------------------------------------------------------------------------
# bad input
# ----------------------------------------------------------------------------------------------

def test_bad_input():
    chain, _ = chain_collider_data(n=100)
    with pytest.raises(TypeError, match="data"):
        pc_skeleton(None)
    with pytest.raises(ValueError, match="data"):
        pc_skeleton(chain.to_numpy()[:, 0])
    nan = chain.copy()
    nan.iloc[3, 1] = np.nan
    with pytest.raises(ValueError, match="data contains 1 NaN value"):
        pc_skeleton(nan)
    const = chain.assign(Y=1.0)
    with pytest.raises(ValueError, match="column 'Y' is constant"):
        pc_skeleton(const)
    with pytest.raises(ValueError, match="at least two columns"):
        pc_skeleton(chain[["X"]])
    with pytest.raises(ValueError, match="at least 4 rows"):
        pc_skeleton(chain.iloc[:3])
    with pytest.raises(ValueError, match="alpha"):
        pc_skeleton(chain, alpha=1.0)
    with pytest.raises(ValueError, match="alpha"):
        pc_skeleton(chain, alpha=0)
    with pytest.raises(ValueError, match="unknown test"):
        pc_skeleton(chain, test="kci")
    with pytest.raises(ValueError, match="max_cond"):
        pc_skeleton(chain, max_cond=-1)
    with pytest.raises(ValueError, match="n_jobs"):
        pc_skeleton(chain, n_jobs=0)
    with pytest.raises(TypeError, match="groups"):
        pc_skeleton(chain, groups=[["X"], ["Y"]])
    with pytest.raises(ValueError, match="groups must define at least two"):
        pc_skeleton(chain, groups={"a": ["X", "Y"]})
    with pytest.raises(ValueError, match=r"groups\['a'\] is empty"):
        pc_skeleton(chain, groups={"a": [], "b": ["Y"]})
    with pytest.raises(ValueError, match=r"groups\['b'\] lists 'W'"):
        pc_skeleton(chain, groups={"a": ["X"], "b": ["W"]})
    with pytest.raises(ValueError, match="share column 'Y'"):
        pc_skeleton(chain, groups={"a": ["X", "Y"], "b": ["Y", "Z"]})
    with pytest.raises(ValueError, match="lists column 'X' twice"):
        pc_skeleton(chain, groups={"a": ["X", "X"], "b": ["Y"]})
    with pytest.raises(ValueError, match="column index"):
        pc_skeleton(chain.to_numpy(), groups={"a": [0], "b": [3]})
    dup = pd.DataFrame(chain.to_numpy(), columns=["X", "X", "Z"])
    with pytest.raises(ValueError, match="duplicated"):
        pc_skeleton(dup)
    with pytest.raises(TypeError, match="takes no argument 'kk'"):
        pc_skeleton(chain, test="rpcit", kk=5)
    with pytest.raises(TypeError, match="takes no argument 'k'"):
        pc_skeleton(chain, test="gcm", k=5)
    with pytest.raises(TypeError, match="takes no argument 'type'"):   # gcm_test's variant is `kind`
        pc_skeleton(chain, test="gcm", type="max")
    with pytest.raises(TypeError, match="takes no argument 'base'"):
        pc_skeleton(chain, test="parcor", base="gcm")
    with pytest.raises(TypeError, match="'resid_x' is set by pc_skeleton"):
        pc_skeleton(chain, test="gcm", resid_x=1)
    with pytest.raises(TypeError, match="'variance' cannot be set"):
        pc_skeleton(chain, test="rpcit", regression="krr", variance="smoother")
    with pytest.raises(ValueError, match="unknown parcor"):
        pc_skeleton(chain, test="parcor", parcor="z")
    with pytest.raises(ValueError, match=r"p-value 2\.0"):
        pc_skeleton(chain, test=lambda x, y, z: 2.0)
    with pytest.raises(TypeError, match="p-value or an HTest"):
        pc_skeleton(chain, test=lambda x, y, z: "small")


def test_n_jobs_changes_nothing():
    """Each test's seed stream is keyed by its nodes (statcore.utils.spawn_seeds), so the random
    projections of RP-CIT, and so the skeleton and its p-values, do not depend on n_jobs."""
    dag = nx.DiGraph([(0, 1), (1, 2), (3, 2)])
    data = linear_sem(dag, 150, np.random.default_rng(8))
    runs = [pc_skeleton(data, alpha=0.01, test="rpcit", seed=4, n_jobs=j) for j in (1, 2)]
    np.testing.assert_array_equal(np.asarray(runs[0].adjacency), np.asarray(runs[1].adjacency))
    np.testing.assert_array_equal(np.asarray(runs[0].p_max, dtype=float), np.asarray(runs[1].p_max, dtype=float))
    assert runs[0].sepsets == runs[1].sepsets
