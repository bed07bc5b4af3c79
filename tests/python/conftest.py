"""Shared pieces of the pytest tests of the Python module lsgl (python/, docs/python.md), with the
built package on PYTHONPATH (build/python):

    python3 -m pytest -q tests/python/test_lsgl.py --lsgl build/lsgl --mpiexec mpirun
    mpirun -n 3 python3 -m pytest -q tests/python/test_lsgl_mpi.py

test_lsgl.py compares the module with the executable (--lsgl, run under --mpiexec; or the
environment variables LSGL and MPIEXEC); test_lsgl_mpi.py runs on every rank of mpirun with mpi4py.
ctest runs both (tests/CMakeLists.txt: python, python_mpi_np1..3).

Under mpirun with more than one rank, a rank stops at its first failure and then aborts the job
(MPI_Abort after pytest's report), so a failure on one rank fails mpirun at once instead of
leaving the other ranks waiting in a collective call.
"""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "cli"))
from harness import four_blobs  # noqa: E402  the data of the command-line tests


def pytest_addoption(parser):
    parser.addoption("--lsgl", default=os.environ.get("LSGL"),
                     help="the lsgl executable test_lsgl.py compares with (default: $LSGL)")
    parser.addoption("--mpiexec", default=os.environ.get("MPIEXEC", "mpirun"),
                     help="mpirun for the executable's runs (default: $MPIEXEC or mpirun)")


@pytest.fixture(scope="session")
def lsgl_exe(pytestconfig):
    path = pytestconfig.getoption("--lsgl")
    if not path:
        pytest.fail("the lsgl executable is needed: --lsgl PATH or LSGL=PATH")
    return os.path.abspath(path)


@pytest.fixture(scope="session")
def mpiexec(pytestconfig):
    return pytestconfig.getoption("--mpiexec")


@pytest.fixture(scope="session")
def X():
    """four_blobs(): 600 x 5 float32, C order, rows 10 = 11 and 200 = 201 (shared: a test that
    changes values changes a copy)."""
    return four_blobs()[0]


def _world_size():
    """The size of MPI_COMM_WORLD if a test module imported mpi4py, else 0."""
    mpi = sys.modules.get("mpi4py.MPI")
    return mpi.COMM_WORLD.Get_size() if mpi is not None else 0


def pytest_collection_finish(session):
    if _world_size() > 1:
        session.config.option.maxfail = 1  # a failure on one rank only: stop this rank at once


def pytest_sessionfinish(session, exitstatus):
    session.config._lsgl_exitstatus = exitstatus


def pytest_unconfigure(config):
    """After pytest's report: on a failure under mpirun (more than one rank), MPI_Abort, which
    ends every rank (the others may be waiting in a collective call of the failed test)."""
    status = getattr(config, "_lsgl_exitstatus", 0)
    if status != 0 and _world_size() > 1:
        sys.stdout.flush()
        sys.stderr.flush()
        sys.modules["mpi4py.MPI"].COMM_WORLD.Abort(int(status))
