"""End-to-end tests of `--renumber` and edge-list header lines (ctest cli_renumber, issue 28
item 5): named ids and ids of any size are numbered 0..n-1 in order of first appearance, the same
on 1, 2 and 3 ranks; the graph equals the one written with those integers; the names are written
to OUTPUT.ids; bad input is one `lsgl: error` line on every rank.
Usage: renumber_tests.py LSGL MPIEXEC
"""
import gzip

import numpy as np
import scipy.io
import scipy.sparse as sp

from harness import Suite, digest

T = Suite("lsgl-cli-renumber-")
run, check, path = T.run, T.check, T.path


def ok(p):
    return p is not None and p.returncode == 0


def lines_of(f):
    with open(f) as h:
        return h.read().splitlines()


# A named edge list: words, quoted names with blanks, integers far beyond any array size; a
# header line, comments, repeated edges (summed). The reference numbering is built here.
rng = np.random.default_rng(7)
spellings = [lambda x: f"gene-{x}", lambda x: str(10**15 + x), lambda x: f'"cell {x}"']
rows, order, number = ["source,target,weight"], [], {}
for t in range(3000):
    a, b = rng.integers(0, 400, size=2)
    w = int(rng.integers(1, 5))
    sa, sb = spellings[a % 3](a), spellings[b % 3](b)
    if t % 500 == 0:
        rows.append("# a comment")
    rows.append(f"{sa},{sb},{w}")
    for s in (sa, sb):
        s = s.strip('"')
        if s not in number:
            number[s] = len(order)
            order.append(s)
named = T.write("named.csv", ("\n".join(rows) + "\n").encode())
T.write("named.csv.gz", gzip.compress(open(named, "rb").read()))

# The reference graph: the integer ids of the map above, symmetrised as lsgl's docs say (an
# edge listed once is undirected; repeated (i, j) summed; W_ij = max of the two directions).
n = len(order)
A = sp.coo_matrix((n, n)).tocsr()
us, vs, ws = [], [], []
for line in rows[1:]:
    if line.startswith("#"):
        continue
    fields = line.rsplit(",", 1)
    a, b = fields[0].split(",")
    us.append(number[a.strip('"')])
    vs.append(number[b.strip('"')])
    ws.append(float(fields[1]))
A = sp.csr_matrix((ws, (us, vs)), shape=(n, n))  # duplicates summed
A.setdiag(0)
A.eliminate_zeros()
W = A.maximum(A.T).tocsr()

outs = {}
for ranks in (1, 2, 3):
    out = path(f"r{ranks}.mtx")
    p = run("convert", "--graph", named, "--renumber", "--output", out, ranks=ranks)
    T.setup(f"convert --renumber on {ranks} ranks", p)
    outs[ranks] = out
    G = scipy.io.mmread(out).tocsr()
    check(f"{ranks} ranks: the renumbered graph equals the graph of the reference numbering",
          G.shape == W.shape and abs(G - W).max() == 0, f"{G.shape} vs {W.shape}")
    check(f"{ranks} ranks: OUTPUT.ids lists the names in order of first appearance",
          lines_of(out + ".ids") == order, lines_of(out + ".ids")[:5])
check("the same .mtx and .ids on 1, 2 and 3 ranks",
      len({digest(o) for o in outs.values()}) == 1 and
      len({digest(o + ".ids") for o in outs.values()}) == 1)
p = run("convert", "--graph", path("named.csv.gz"), "--renumber", "--output", path("gz.npz"))
check("gzip input: the same graph and names",
      ok(p) and abs(sp.load_npz(path("gz.npz")) - W).max() == 0
      and lines_of(path("gz.npz.ids")) == order, p.stderr if p else "hang")
check("the note says the header was skipped and the names numbered",
      ok(p) and "header line skipped" in p.stdout and "in order of first appearance" in p.stdout,
      p.stdout if p else "")

# Ids of any size: refused without --renumber (with the hint), two nodes with it.
huge = T.write("huge.txt", b"1000000000 2 1.0\n")
p = run("convert", "--graph", huge, "--output", path("huge.h5"), ranks=2)
T.check_refused("ids far beyond the edges refused without --renumber", p, [path("huge.h5")])
check("... and the message points to --renumber", p is not None and "--renumber" in p.stderr,
      p.stderr if p else "")
p = run("convert", "--graph", huge, "--renumber", "--output", path("huge.mtx"), ranks=2)
check("with --renumber: 2 nodes, one edge (ids in first-appearance order)",
      ok(p) and scipy.io.mmread(path("huge.mtx")).shape == (2, 2)
      and lines_of(path("huge.mtx.ids")) == ["1000000000", "2"], p.stderr if p else "")
p = run("convert", "--graph", T.write("n.txt", b"a b 1.0\n"), "--output", path("n.h5"), ranks=2)
check("named ids without --renumber: the message points to --renumber",
      p is not None and p.returncode != 0 and "--renumber" in p.stderr, p.stderr if p else "")

# A header line is recognised with integer ids too.
p = run("convert", "--graph", T.write("hdr.txt", b"source,target,weight\n0,1,2\n1,2,3\n"),
        "--output", path("hdr.mtx"), ranks=2)
check("an integer edge list with a header line is read",
      ok(p) and (scipy.io.mmread(path("hdr.mtx")).toarray()
                 == [[0, 2, 0], [2, 0, 3], [0, 3, 0]]).all(), p.stderr if p else "")

# densest on a named graph: a 6-clique among sparse noise, found by its names.
clique = [f"c{i}" for i in range(6)]
edges = [f"{a} {b}" for i, a in enumerate(clique) for b in clique[i + 1:]]
edges += [f"x{i} x{i + 1}" for i in range(40)] + ["x0 c0"]
g = T.write("clique.txt", ("\n".join(edges) + "\n").encode())
p = run("densest", "--graph", g, "--renumber", "--size", 6, "--method", "peel", "--output",
        path("s.txt"), ranks=2)
if ok(p):
    ids = lines_of(path("s.txt.ids"))
    members = [ids[int(x)] for x in lines_of(path("s.txt"))]
    check("densest --renumber: the members, named through s.txt.ids, are the clique",
          sorted(members) == clique, members)
else:
    check("densest --renumber ran", False, p.stderr if p else "hang")

# Bad input: one error line on every rank, no output and no id map written.
np.save(path("lab.npy"), np.zeros(3, dtype=np.int64))
mtx = T.write("g.mtx", b"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 1\n")
cases = {
    "a Matrix Market file": ["--graph", mtx],
    "an HDF5 graph": ["--graph", path("r1.mtx")],  # replaced below by an HDF5 graph
    "an empty quoted name": ["--graph", T.write("q.txt", b'a b 1\n"" c 1\n')],
    "an unclosed quote": ["--graph", T.write("u.txt", b'a b 1\n"c d 1\n')],
    "a non-numeric weight": ["--graph", T.write("w.txt", b"a b 1\nb c x\n")],
    "only a header": ["--graph", T.write("h.txt", b"source,target,weight\n")],
}
p = run("convert", "--graph", named, "--renumber", "--output", path("g.h5"))
T.setup("an HDF5 graph", p)
cases["an HDF5 graph"] = ["--graph", path("g.h5")]
for name, args in cases.items():
    out = path("bad.mtx")
    p = run("convert", *args, "--renumber", "--output", out, ranks=2)
    T.check_refused(f"convert --renumber, {name}: refused", p, [out, out + ".ids"])
T.write("o.mtx.ids", b"a b 1\n")
p = run("convert", "--graph", path("o.mtx.ids"), "--renumber", "--output", path("o.mtx"),
        ranks=2)
T.check_refused("an output whose id map would overwrite the input refused", p, [path("o.mtx")])
check("... and the input is intact", open(path("o.mtx.ids"), "rb").read() == b"a b 1\n")
p = run("eval", "--graph", named, "--renumber", "--labels", path("lab.npy"), ranks=2)
T.check_refused("eval --renumber --labels refused (labels are by position)", p, [])
check("... and the message says how to order the labels", p is not None and ".ids" in p.stderr,
      p.stderr if p else "")

T.finish()
