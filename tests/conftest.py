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

# Subprocesses (``python -m adfort`` run from a temporary directory) import
# this checkout's adfort, not whichever one the environment has installed.
_ROOT = str(Path(__file__).resolve().parents[1])
os.environ["PYTHONPATH"] = os.pathsep.join(
    [_ROOT] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != _ROOT])
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
