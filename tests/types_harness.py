"""Finite-difference checks for routines with derived-type and pointer
arguments.

The generated driver of ``harness.py`` declares plain arrays; a derived-type
argument needs values for its components and an adjoint of the adjoint
type.  Each fixture is therefore a directory

    tests/fortran_fixtures/types/<name>/
        fixture.toml    routine, dep, indep (as given to adfort diff)
        model.f90       the original source
        glue.f90        module ``glue``: the fixture's variables as flat vectors

whose ``glue`` module provides

    glue_sizes(nx, ny)                  sizes of the independents' and
                                        dependents' reals, flattened
    glue_base(x)                        the base point
    glue_eval(x, y)                     y = r(x): sets the arguments from x,
                                        calls the original routine
    glue_rev(x, xpre, ybar, xbar, y)    sets the arguments from x, presets
                                        the independent-only adjoints to
                                        xpre, seeds the dependents with
                                        ybar, calls r_rev; xbar = adjoints of
                                        the independents (minus the presets:
                                        they must be incremented), y = the
                                        primal results of r_rev

and a common driver checks <xbar, xdot> against <ybar, dy>, dy by
fourth-order central differences along a random direction xdot (relative
to x), and that r_rev leaves the primal results of r.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import harness

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]

REPO_ROOT = Path(__file__).resolve().parent.parent
TYPES_DIR = Path(__file__).resolve().parent / "fortran_fixtures" / "types"
RUN_FFLAGS = ["-O0", "-g", "-fcheck=all", "-ffpe-trap=invalid,zero,overflow"]
TOL = 1.0e-6

DRIVER = """\
program types_check
  use glue
  implicit none
  integer, parameter :: adf_dp = kind(1.0d0)
  integer :: nx, ny, i
  integer(kind=8) :: seed
  real(adf_dp), allocatable :: x(:), xdot(:), xpre(:), xbar(:), ybar(:)
  real(adf_dp), allocatable :: y0(:), yrev(:), yp1(:), ym1(:), yp2(:), ym2(:), dy(:)
  real(adf_dp) :: h, lhs, rhs, primal
  seed = 20240611_8
  call glue_sizes(nx, ny)
  allocate(x(nx), xdot(nx), xpre(nx), xbar(nx), ybar(ny))
  allocate(y0(ny), yrev(ny), yp1(ny), ym1(ny), yp2(ny), ym2(ny), dy(ny))
  call glue_base(x)
  do i = 1, nx
    xdot(i) = (urand() - 0.5_adf_dp) * max(abs(x(i)), 1.0e-2_adf_dp)
    xpre(i) = urand() - 0.5_adf_dp
  end do
  do i = 1, ny
    ybar(i) = urand() - 0.5_adf_dp
  end do
  h = 1.0e-4_adf_dp
  call glue_eval(x, y0)
  call glue_eval(x + h * xdot, yp1)
  call glue_eval(x - h * xdot, ym1)
  call glue_eval(x + 2 * h * xdot, yp2)
  call glue_eval(x - 2 * h * xdot, ym2)
  dy = (8 * (yp1 - ym1) - (yp2 - ym2)) / (12 * h)
  rhs = dot_product(ybar, dy)
  call glue_rev(x, xpre, ybar, xbar, yrev)
  lhs = dot_product(xbar, xdot)
  primal = maxval(abs(yrev - y0)) / max(maxval(abs(y0)), 1.0e-300_adf_dp)
  print '(a,es25.16e3,1x,es25.16e3,1x,es25.16e3)', 'ADF_CHECK', lhs, rhs, primal
contains
  function urand() result(u)
    real(adf_dp) :: u
    seed = mod(16807_8 * seed, 2147483647_8)
    u = real(seed, adf_dp) / 2147483647.0_adf_dp
  end function urand
end program types_check
"""


def fixtures():
    """The fixture directories, sorted."""
    return sorted(p for p in TYPES_DIR.iterdir() if (p / "fixture.toml").exists())


def read_fixture(path):
    """The fixture's metadata (fixture.toml)."""
    with open(path / "fixture.toml", "rb") as handle:
        return tomllib.load(handle)


def generate(path, meta, schedule, out, extra_cli=()):
    """Run ``adfort diff`` for a fixture (with options `extra_cli`);
    return the CompletedProcess."""
    cmd = [sys.executable, "-m", "adfort", "diff", str(path / meta.get("main", "model.f90")),
           "--routine", meta["routine"], "--dep", ",".join(meta["dep"]),
           "--indep", ",".join(meta["indep"]), "--schedule", schedule, "-o", str(out),
           *extra_cli]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=REPO_ROOT, check=False)


def check(path, schedule, workdir, extra_cli=()):
    """Differentiate (with the options `extra_cli`), compile and run the
    check of one fixture.

    :returns: (lhs, rhs, primal difference).
    :raises harness.HarnessError: at the first step that fails.
    """
    meta = read_fixture(path)
    workdir = Path(workdir)
    generated = workdir / "model_ad.f90"
    proc = generate(path, meta, schedule, generated, extra_cli)
    if proc.returncode != 0:
        raise harness.HarnessError(f"adfort diff failed:\n{proc.stderr}")
    fc = harness.gfortran()
    model = path / meta.get("main", "model.f90")
    for flags, sources in ((["-c", *harness.STRICT_FFLAGS], [model, generated]),):
        proc = subprocess.run([fc, *flags, *map(str, sources)], cwd=workdir,
                              capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise harness.HarnessError(f"strict compilation failed:\n{proc.stderr}")
    driver = workdir / "driver.f90"
    driver.write_text(DRIVER)
    exe = workdir / "check"
    proc = subprocess.run([fc, *RUN_FFLAGS, str(model), str(generated), str(path / "glue.f90"),
                           str(driver), "-o", str(exe)], cwd=workdir, capture_output=True,
                          text=True, check=False)
    if proc.returncode != 0:
        raise harness.HarnessError(f"compilation failed:\n{proc.stderr}")
    proc = subprocess.run([str(exe)], cwd=workdir, capture_output=True, text=True,
                          check=False, timeout=120)
    if proc.returncode != 0:
        raise harness.HarnessError(f"run failed:\n{proc.stdout}\n{proc.stderr}")
    for line in proc.stdout.splitlines():
        if line.startswith("ADF_CHECK"):
            lhs, rhs, primal = (float(v) for v in line.split()[1:4])
            return lhs, rhs, primal
    raise harness.HarnessError(f"no result printed:\n{proc.stdout}")
