"""Hessian-vector products (``adfort diff --mode hvp``, r_hvp): ⟨w, H v⟩
against fourth-order central differences of r_rev's gradients at x ± h v,
x ± 2h v, and r_hvp's gradient against r_rev's, under both schedules; the
calling convention and clean errors."""

import subprocess
import sys

import pytest

import harness
import tangent_harness as th

FD_TOL = 1e-6

# (fixture, scalar dependent, schedules): loops and the dynamic value tape,
# COMMON and external routines, transformational intrinsics (PACK, UNPACK,
# EOSHIFT, NORM2, MATMUL…), allocatable work arrays, an argument both
# dependent and independent.
CASES = [
    ("advection_diffusion.f90", "cost", ("split", "joint")),
    ("column_quadrature_external_args.f", "total", ("split", "joint")),
    ("ocean_grid_diagnostics.f90", "cost", ("split",)),
    ("column_solver_alloc_stat.f90", "heat", ("split",)),
    ("logistic_growth.f90", "pop", ("joint",)),
    # GAMMA and LOG_GAMMA: the digamma helper of the adjoint differentiated too.
    ("rain_gamma_sedimentation.f", "precip", ("split",)),
]


@pytest.mark.parametrize("name,dep,schedule", [(n, d, s) for n, d, ss in CASES for s in ss])
def test_hvp_against_fd_of_gradients(name, dep, schedule, tmp_path):
    result = th.check_hvp(harness.FIXTURE_DIR / name, schedule, tmp_path, dep)
    assert result.fd_err < FD_TOL, result.describe()
    assert result.grad_err < 1e-13, result.describe()
    assert result.hvp != 0 or result.fd == 0, result.describe()


KERNEL = """\
module quad
  implicit none
contains
  subroutine energy(n, x, k, e, g)
    integer, intent(in) :: n
    real(8), intent(in) :: x(n), k
    real(8), intent(out) :: e, g(n)
    e = 0.5d0 * k * sum(x**2) + sum(x**4) / 4
    g = x
  end subroutine energy
end module quad
"""


def _diff(*args, cwd):
    return subprocess.run([sys.executable, "-m", "adfort", "diff", *map(str, args)],
                          cwd=cwd, capture_output=True, text=True)


def test_calling_convention(tmp_path):
    """r_hvp in m_hvp: r_rev's arguments, each independent followed by its
    direction, its adjoint and the adjoint's tangent (H v)."""
    (tmp_path / "quad.f90").write_text(KERNEL)
    proc = _diff("quad.f90", "--dep", "e", "--indep", "x,k", "--mode", "hvp", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "quad_hvp.f90").read_text()
    assert "module quad_hvp" in text
    assert "subroutine energy_hvp(n, x, x_d, x_adj, x_adj_d, k, k_d, k_adj, k_adj_d, e, " \
           "e_adj, g)" in " ".join(text.replace("&\n", " ").split())
    # H v of e = k |x|²/2 + Σ x⁴/4 by hand: H = k I + diag(3 x²) (+ x in the k row/column).
    proc = _diff("quad.f90", "--dep", "e", "--indep", "x,k", "-o", "quad_ad.f90", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    (tmp_path / "main.f90").write_text("""\
program main
  use quad_hvp, only: energy_hvp
  implicit none
  real(8) :: x(2), xd(2), xa(2), xad(2), k, kd, ka, kad, e, ea, g(2)
  x = [1d0, 2d0]; k = 3; xd = [1d0, -1d0]; kd = 0.5d0
  xa = 0; xad = 0; ka = 0; kad = 0; ea = 1
  call energy_hvp(2, x, xd, xa, xad, k, kd, ka, kad, e, ea, g)
  print '(4es25.16)', xad - (k * xd + 3 * x**2 * xd + kd * x), kad - sum(x * xd), &
      xa - (k * x + x**3)
end program main
""")
    fc = harness.gfortran()
    subprocess.run([fc, "quad.f90", "quad_ad.f90", "quad_hvp.f90", "main.f90", "-o", "main"],
                   cwd=tmp_path, check=True, capture_output=True)
    out = subprocess.run([str(tmp_path / "main")], capture_output=True, text=True, check=True)
    assert all(abs(float(v)) < 1e-12 for v in out.stdout.split()), out.stdout


@pytest.mark.parametrize("dep,indep,message", [
    ("g", "x", "needs a scalar dependent: 'g' is an array"),
    ("e,g", "x", "one scalar dependent"),
    ("e", "quad::nothing", "arguments as dependent and independents"),
])
def test_clean_errors(dep, indep, message, tmp_path):
    (tmp_path / "quad.f90").write_text(KERNEL)
    proc = _diff("quad.f90", "--dep", dep, "--indep", indep, "--mode", "hvp", "-o", "out.f90",
                 cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert message in proc.stderr and "quad.f90" in proc.stderr
    assert not (tmp_path / "out.f90").exists()
