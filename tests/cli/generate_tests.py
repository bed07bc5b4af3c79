"""End-to-end test of `lsgl generate --kind powerlaw-graph` under mpirun (ctest cli_generate):
the generated graph is symmetric and has no self-loops.
Usage: generate_tests.py LSGL MPIEXEC
"""
import h5py
import numpy as np
import scipy.sparse as sp

from harness import Suite

T = Suite("lsgl-cli-generate-")
run, check, path = T.run, T.check, T.path

pl = path("pl.h5")
p = run("generate", "--kind", "powerlaw-graph", "--n", 3000, "--edges", 12000,
        "--communities", "20,80", "--community-density", "0.95,0.1", "--seed", 5, "--output", pl,
        ranks=2)
check("generate powerlaw-graph exits 0", p is not None and p.returncode == 0,
      p.stderr if p else "timeout")
with h5py.File(pl, "r") as f:
    planted = np.flatnonzero(f["planted/community"][:] == 0)
    g = f["graph"]
    Wpl = sp.csr_array((g["data"][:], g["indices"][:], g["indptr"][:]), shape=(g.attrs["n"],) * 2)
check("generated graph symmetric without self-loops",
      abs(Wpl - Wpl.T).max() == 0 and Wpl.diagonal().max() == 0)

T.finish()
