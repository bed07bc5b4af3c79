"""End-to-end test of `lsgl generate --kind powerlaw-graph` under mpirun (ctest cli_generate):
the same graph on 1, 2 and 3 ranks; symmetric, no self-loops, weights 1; the planted communities
of the sizes asked for, each as dense as asked (within 5 standard deviations of the binomial
count); the edge count and the largest degree as documented (docs/generate.md).
Usage: generate_tests.py LSGL MPIEXEC
"""
import math

import h5py
import numpy as np
import scipy.sparse as sp

from harness import Suite

T = Suite("lsgl-cli-generate-")
run, check, path = T.run, T.check, T.path

n, samples, sizes, densities = 3000, 12000, (20, 80), (0.95, 0.1)
graphs = {}
for ranks in (1, 2, 3):
    pl = path(f"pl{ranks}.h5")
    p = run("generate", "--kind", "powerlaw-graph", "--n", n, "--edges", samples,
            "--communities", ",".join(map(str, sizes)),
            "--community-density", ",".join(map(str, densities)), "--seed", 5, "--output", pl,
            ranks=ranks)
    T.setup(f"generate powerlaw-graph on {ranks} ranks", p)
    with h5py.File(pl, "r") as f:
        g = f["graph"]
        graphs[ranks] = (g["indptr"][:], g["indices"][:], g["data"][:],
                         f["planted/community"][:], dict(f.attrs), int(g.attrs["n"]))
check("generate: the same graph and communities on 1, 2 and 3 ranks",
      all(all(np.array_equal(graphs[1][i], graphs[r][i]) for i in range(4)) for r in (2, 3)))

indptr, indices, data, community, attrs, n_read = graphs[2]
W = sp.csr_array((data, indices, indptr), shape=(n_read, n_read))
check("generated graph symmetric without self-loops, weights 1",
      n_read == n and abs(W - W.T).max() == 0 and W.diagonal().max() == 0
      and np.all(data == 1.0))
labels, counts = np.unique(community, return_counts=True)
check("planted communities of the sizes asked for, every other node in none (-1)",
      list(labels) == [-1, 0, 1] and list(counts) == [n - sum(sizes), *sizes],
      (labels, counts))
for c, (size, density) in enumerate(zip(sizes, densities)):
    members = np.flatnonzero(community == c)
    pairs = size * (size - 1) // 2
    inside = W[members][:, members].nnz // 2
    # Binomial(pairs, density) community edges, plus the few background edges that fall inside.
    sd = math.sqrt(pairs * density * (1 - density))
    check(f"community {c}: {inside} of {pairs} pairs are edges, density {density} asked",
          pairs * density - 5 * sd <= inside <= pairs * density + 5 * sd + 0.02 * pairs,
          f"{inside / pairs:.3f}")
edges = W.nnz // 2
community_pairs = sum(s * (s - 1) // 2 for s in sizes)
check(f"edges: {edges} written; at most the samples plus the community pairs, at least 90% of "
      "the samples (loops and repeats dropped)",
      attrs["edges"] == edges and 0.9 * samples <= edges <= samples + community_pairs, attrs)
degree = np.asarray(W.sum(axis=1)).ravel()
expected_max = math.sqrt(2 * samples)  # --max-degree 0
check(f"degrees: largest {degree.max():.0f} near the expected largest {expected_max:.0f} "
      f"(mean {degree.mean():.1f}): a power law, not a uniform graph",
      abs(attrs["max_degree"] - expected_max) < 1e-9
      and 0.5 * expected_max <= degree.max() <= 2 * expected_max
      and degree.max() > 10 * degree.mean(), degree.max())

T.finish()
