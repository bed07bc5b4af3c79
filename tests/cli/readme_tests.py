"""The README's examples run as written (ctest cli_readme, issue 28): the ```sh block under
"## Examples" in README.md is extracted and run by bash -e in a temporary directory (with
`build`, `jobs` and `configs` linked to this build and repository), under a timeout; then the
files the examples write are read back and checked.
Usage: readme_tests.py LSGL MPIEXEC
"""
import os
import re
import subprocess

import h5py
import numpy as np
import scipy.io

from harness import Suite, load_graph

T = Suite("lsgl-cli-readme-")
check = T.check
repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
readme = open(os.path.join(repo, "README.md")).read()
section = readme[readme.index("## Examples"):]
m = re.search(r"```sh\n(.*?)```", section, re.S)
check("README has an Examples sh block", m is not None)
if m is None:
    T.finish()
script = m.group(1)
check("the examples use at most 2 ranks",
      all(int(n) <= 2 for n in re.findall(r"mpirun -n (\d+)", script)), script)
check("the examples source jobs/env.sh before mpirun",
      "source jobs/env.sh" in script
      and script.index("source jobs/env.sh") < script.index("mpirun"), script)

os.symlink(os.path.dirname(T.lsgl), T.path("build"))
for d in ("jobs", "configs"):
    os.symlink(os.path.join(repo, d), T.path(d))
# The environment of a fresh shell: the example itself must source what Open MPI needs.
env = {k: v for k, v in os.environ.items() if not k.startswith("OMPI_")}
env["PATH"] = os.path.dirname(T.mpiexec) + os.pathsep + env.get("PATH", "")
try:
    p = subprocess.run(["bash", "-e", "-c", script], cwd=T.tmp, env=env, capture_output=True,
                       text=True, timeout=900)
    check("the README examples run with exit 0", p.returncode == 0,
          f"rc={p.returncode}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
except subprocess.TimeoutExpired:
    check("the README examples run with exit 0", False, "timeout")
    T.finish()

W, gattrs, _, _ = load_graph(T.path("graph.h5"))
check("learn: 10,000 nodes, symmetric, average degree near 10",
      W.shape == (10000, 10000) and abs(W - W.T).max() == 0 and 8 <= W.nnz / 10000 <= 12,
      f"{W.shape} {W.nnz}")
M = scipy.io.mmread(T.path("graph.mtx")).tocsr()
check("convert: graph.mtx is the graph of graph.h5", abs(M - W).max() <= 1e-12 * W.max())
with h5py.File(T.path("sub.h5"), "r") as f:
    check("densest: 200 distinct nodes", len(np.unique(f["/subgraph/nodes"][:])) == 200)
check("collect: graphs.csv has a row for graph.h5",
      "graph.h5" in open(T.path("graphs.csv")).read())
T.finish()
