"""The Python package lsgl for pip (`pip install --no-build-isolation .`, docs/python.md).

The extension lsgl._lsgl is built by the project's CMake (LSGL_PYTHON) in build/ (the directory
jobs/install.sh builds; LSGL_BUILD_DIR chooses another), so an installed tree is reused and only
the module is compiled; the package is python/lsgl plus that module.
"""
import glob
import os
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        return re.search(r"project\(lsgl VERSION ([0-9.]+)", f.read()).group(1)


class CMakeBuild(build_ext):
    """Configures and builds the target _lsgl with CMake, then copies the module into place."""

    def build_extension(self, ext):
        build = os.path.abspath(os.environ.get("LSGL_BUILD_DIR", os.path.join(ROOT, "build")))
        python = os.path.realpath(sys.executable)  # a venv's interpreter resolves to the system's
        subprocess.check_call(["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                               "-DLSGL_PYTHON=ON", f"-DPython_EXECUTABLE={python}"])
        subprocess.check_call(["cmake", "--build", build, "--target", "_lsgl", "-j",
                               str(os.cpu_count() or 1)])
        built = glob.glob(os.path.join(build, "python", "lsgl", "_lsgl*.so"))
        if len(built) != 1:
            raise RuntimeError(f"expected one built module in {build}/python/lsgl, got {built}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


setup(
    name="lsgl",
    version=version(),
    description="Large-scale graph learning from smooth signals (MPI), from Python",
    license="see LICENSE",
    packages=["lsgl"],
    package_dir={"lsgl": "python/lsgl"},
    ext_modules=[Extension("lsgl._lsgl", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": os.path.join("build", "setuptools")}},
    python_requires=">=3.9",
)
