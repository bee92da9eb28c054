"""pytest setup: make ``harness`` importable and insist on gfortran.

Nothing is skipped: a missing compiler must make the suite fail, because a
suite that silently skips every numerical check would look green.
"""

import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

# The command line the tests run (``python -m adfort`` from a temporary
# directory) is this checkout's, not the package the environment installed
# (an editable install may point at another checkout).
_ROOT = str(Path(__file__).resolve().parent.parent)
os.environ["PYTHONPATH"] = os.pathsep.join(
    p for p in (_ROOT, os.environ.get("PYTHONPATH")) if p)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)


def pytest_sessionstart(session):
    if shutil.which("gfortran") is None:
        # Raised here the whole run errors out with this message.
        raise pytest.UsageError(
            "gfortran not found on PATH: the adfort tests compile and run "
            "Fortran and cannot be skipped.  Install it with `make gfortran` "
            "(or apt-get install gfortran).")


@pytest.fixture
def workdir(tmp_path):
    """A fresh directory per test for generated code, drivers, .mod files."""
    return tmp_path
