"""Shared pieces of the CLI tests (tests/cli/*_tests.py), which run the lsgl executable under
mpirun, each run with a timeout.

A script makes one Suite from its command line (LSGL MPIEXEC [more]), runs lsgl with
`suite.run(...)`, records each assertion with `suite.check(name, ok, detail)` (PASS/FAIL lines,
XFAIL for known bugs) and ends with `suite.finish()`: its last line is `N passed, N failed` and
the exit code is 1 on any failure. Nothing here decides whether a test passes.
"""
import functools
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

import h5py
import numpy as np
import scipy.sparse as sp

print = functools.partial(print, flush=True)  # progress visible when run under ctest


class Suite:
    """The state of one test script: the executable, a temporary directory and the counts."""

    def __init__(self, prefix, ranks=2, timeout=120):
        self.lsgl, self.mpiexec = os.path.abspath(sys.argv[1]), sys.argv[2]
        self.ranks, self.timeout = ranks, timeout
        self.tmp = tempfile.mkdtemp(prefix=prefix)
        self.passed, self.failures, self.xfails = 0, [], []
        self.t_start = self.t_last = time.time()
        self.times = bool(os.environ.get("LSGL_CLI_TIMES"))  # seconds since the last check
        sys.excepthook = self._crash

    def path(self, name):
        return os.path.join(self.tmp, name)

    def write(self, name, data):
        """Writes the bytes `data` to the file `name` of the temporary directory; its path."""
        with open(self.path(name), "wb") as f:
            f.write(data)
        return self.path(name)

    def command(self, *args, ranks=None):
        return [self.mpiexec, "-n", str(ranks or self.ranks), self.lsgl, *map(str, args)]

    def run(self, *args, ranks=None, timeout=None, cwd=None):
        """lsgl ARGS under mpirun; the CompletedProcess, or None after the timeout (a hang)."""
        try:
            return subprocess.run(self.command(*args, ranks=ranks), capture_output=True,
                                  text=True, timeout=timeout or self.timeout, cwd=cwd)
        except subprocess.TimeoutExpired:
            return None

    def check(self, name, ok, detail="", known_bug=None):
        """known_bug: a description; the case is then expected to fail (XFAIL) until fixed.
        With LSGL_CLI_TIMES set, each line ends with the seconds since the previous check."""
        now = time.time()
        if self.times:
            name = f"{name} [{now - self.t_last:.1f} s]"
        self.t_last = now
        if known_bug:
            if ok:
                self.failures.append(name)
                print(f"XPASS {name} (known bug fixed? remove the marker: {known_bug})")
            else:
                self.xfails.append(name)
                print(f"XFAIL {name}: {known_bug} {detail}")
            return
        if ok:
            self.passed += 1
            print(f"PASS {name}")
        else:
            self.failures.append(name)
            print(f"FAIL {name} {detail}")

    def setup(self, name, p):
        """A run the checks depend on: on failure one FAIL line, then the script ends."""
        if p is None or p.returncode != 0:
            self.check(f"setup: {name}", False, p.stderr if p else "timeout")
            self.finish()

    def check_refused(self, name, p, absent):
        """A run on bad input: not a hang, a non-zero exit, one `lsgl: error` line and none of
        the files `absent` written nor any temporary file of theirs left (temporaries_of)."""
        if p is None:
            self.check(name, False, "hang (timeout)")
            return
        left = [t for f in absent for t in temporaries_of(f)]
        ok = (p.returncode != 0 and len(error_lines(p)) == 1
              and not any(os.path.exists(f) for f in absent) and not left)
        self.check(name, ok, f"rc={p.returncode} left={left} stderr={p.stderr!r}")

    def check_bad_inputs(self, command, cases, out, label):
        """`lsgl COMMAND ARGS --output OUT` on 2 ranks for each case name -> ARGS (ARGS with their
        own --output as given): each refused (check_refused), neither OUT nor a temporary file
        of it written."""
        for name, args in cases.items():
            if "--output" not in args:
                args = args + ["--output", out]
            p = self.run(command, *args, ranks=2)
            self.check_refused(f"{label}{name}", p, [out])

    def skip(self, name, reason):
        """A case this machine cannot run (no mount, no mknod): SKIP, or a failure where
        LSGL_REQUIRE_PRIVILEGED=1 (CI, which runs as root where both are allowed)."""
        if os.environ.get("LSGL_REQUIRE_PRIVILEGED") == "1":
            self.check(name, False, f"skipped ({reason}) but LSGL_REQUIRE_PRIVILEGED=1")
        else:
            print(f"SKIP {name} ({reason})")

    def four_blobs_input(self):
        """four_blobs() written to x.h5 (dataset X): (X, the generator after it, the path)."""
        X, rng = four_blobs()
        write_h5(self.path("x.h5"), "X", X)
        return X, rng, self.path("x.h5")

    def temporaries(self):
        return glob.glob(os.path.join(self.tmp, "**", "*.partial*"), recursive=True)

    def _crash(self, kind, value, traceback_):
        """An exception no check caught: a failure, and the counts are printed all the same
        (the interpreter then exits with code 1)."""
        traceback.print_exception(kind, value, traceback_, file=sys.stdout)
        self.check(f"no uncaught exception ({kind.__name__})", False, value)
        self._summary()

    def finish(self):
        """Prints the counts (the last line: `N passed, N failed`) and exits, 1 on a failure."""
        self._summary()
        sys.exit(1 if self.failures else 0)

    def _summary(self):
        if self.xfails:
            print(f"{len(self.xfails)} known bugs (XFAIL)")
        print(f"{time.time() - self.t_start:.0f} s")
        if not self.failures:
            shutil.rmtree(self.tmp, ignore_errors=True)
        else:
            print(f"files kept in {self.tmp}")
        print(f"{self.passed} passed, {len(self.failures)} failed")


def temporaries_of(path):
    """The temporary files of the output `path` on disk: PATH.partial* (the writer's
    PATH.partial.<pid>.<hex>, src/util/atomic_file.cpp) and PATH.tmp*."""
    stem = glob.escape(path)
    return glob.glob(stem + ".partial*") + glob.glob(stem + ".tmp*")


def error_lines(p, prefix="lsgl: error"):
    return [l for l in p.stderr.splitlines() if l.startswith(prefix)]


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def write_h5(path, name, array):
    with h5py.File(path, "w") as f:
        f[name] = array


def load_graph(path):
    """An lsgl graph file: (W as scipy CSR, graph attributes, file attributes, degree)."""
    with h5py.File(path, "r") as f:
        g = f["graph"]
        W = sp.csr_array((g["data"][:], g["indices"][:], g["indptr"][:]), shape=(g.attrs["n"],) * 2)
        return W, dict(g.attrs), dict(f.attrs), g["degree"][:]


def blobs(seed, centres, per_centre, d):
    """Gaussian blobs (float32, standard deviation 1, one per centre) and the generator after
    drawing them."""
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(c, 1.0, size=(per_centre, d)) for c in centres]).astype(np.float32)
    return X, rng


def four_blobs():
    """The data of the learn, eval and hash tests: 4 blobs of 150 points in 5 dimensions, rows
    10 = 11 and 200 = 201 (duplicate rows are valid input)."""
    X, rng = blobs(3, (0, 6, 12, 18), 150, 5)
    X[10] = X[11]
    X[200] = X[201]
    return X, rng
