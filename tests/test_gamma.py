"""GAMMA and LOG_GAMMA of active values: their derivatives call the digamma
function adfort writes into the output (:mod:`adfort.helpers`).  Checked
against finite differences in a module with a kind parameter (reverse under
both schedules, tangent), in single precision, and for the name the helper
takes."""

import textwrap

import pytest

import harness
import tangent_harness as th
from harness import assert_clean_failure, run_adfort

# Aerosol activation (Abdul-Razzak & Ghan style) on a gamma-distributed
# droplet spectrum: the spectrum's shape parameter is diagnosed from the
# number concentration, its moments are ratios of gamma functions, the
# effective radius a ratio computed through LOG_GAMMA.
SPECTRUM = """\
! adfort: routine=cloud_optics dep=tau,reff indep=qc,nc
! adfort: init nz=6 qc=1.0e-4:8.0e-4 nc=5.0e7:3.0e8 dz=100:300
module spectrum
  implicit none
  integer, parameter :: wp = selected_real_kind(12, 200)
  real(wp), parameter :: pi = 3.141592653589793_wp, rhow = 1000.0_wp
contains
  subroutine shape_slope(qc, nc, mu, lam)
    real(wp), intent(in) :: qc, nc
    real(wp), intent(out) :: mu, lam
    ! Martin et al. (1994) style dispersion, as microphysics schemes write it
    mu = 1.0_wp/(0.0005714_wp*nc*1.0e-6_wp + 0.2714_wp)**2 - 1.0_wp
    mu = max(2.0_wp, min(mu, 15.0_wp))
    lam = (pi/6.0_wp*rhow*nc*gamma(mu + 4.0_wp)/(qc*gamma(mu + 1.0_wp)))**(1.0_wp/3.0_wp)
  end subroutine shape_slope

  subroutine cloud_optics(nz, qc, nc, dz, tau, reff)
    integer, intent(in) :: nz
    real(wp), intent(in) :: qc(nz), nc(nz), dz(nz)
    real(wp), intent(out) :: tau, reff(nz)
    real(wp) :: mu, lam, m2
    integer :: k
    tau = 0.0_wp
    do k = 1, nz
      call shape_slope(qc(k), nc(k), mu, lam)
      reff(k) = 0.5_wp*exp(log_gamma(mu + 4.0_wp) - log_gamma(mu + 3.0_wp))/lam
      m2 = nc(k)*gamma(mu + 3.0_wp)/(gamma(mu + 1.0_wp)*lam**2)
      tau = tau + 2.0_wp*pi*m2*dz(k)*1.0e-3_wp
    end do
  end subroutine cloud_optics
end module spectrum
"""


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_gamma_functions_of_a_diagnosed_shape(schedule, tmp_path):
    harness.check_source(tmp_path, "spectrum.f90", SPECTRUM, schedule)


def test_tangent_of_gamma_functions(tmp_path):
    (tmp_path / "spectrum.f90").write_text(SPECTRUM)
    result = th.check_tangent(tmp_path / "spectrum.f90", "split", tmp_path / "t")
    assert result.dot_err < 1e-10 and result.fd_err < 1e-6, result.describe()


def test_single_precision_argument(tmp_path):
    """A default real's digamma is computed in double precision and given
    back as a default real (REAL(adfort_digamma(DBLE(x)))).  Checked with
    default reals promoted to double, so that the finite differences have
    the digits to compare with."""
    source = tmp_path / "single.f90"
    source.write_text(textwrap.dedent("""\
        ! adfort: routine=f dep=y indep=x
        ! adfort: init n=4 x=0.6:3.5
        subroutine f(n, x, y)
          integer, intent(in) :: n
          real, intent(in) :: x(n)
          real, intent(out) :: y
          y = sum(log_gamma(x)) + gamma(x(1) + x(2))
        end subroutine f
        """))
    for schedule in ("split", "joint"):
        result = harness.check_fixture(source, schedule, tmp_path / schedule, run_fflags=[
            *harness.RUN_FFLAGS, "-freal-4-real-8"])
        assert result.rel_err < 1e-6, result.describe()
    text = (tmp_path / "split" / "single_ad.f90").read_text()
    assert "REAL(adfort_digamma(DBLE(x)))" in text, text


def test_a_user_name_like_the_helper_is_an_error(tmp_path):
    source = tmp_path / "k.f90"
    source.write_text("""\
subroutine f(x, y)
  real(8), intent(in) :: x
  real(8), intent(out) :: y
  real(8) :: adfort_digamma
  adfort_digamma = 2d0
  y = gamma(x) * adfort_digamma
end subroutine f
""")
    result = run_adfort(["diff", str(source), "--dep", "y", "--indep", "x",
                         "-o", str(tmp_path / "k_ad.f90")], tmp_path)
    assert_clean_failure(result, tmp_path, "k.f90:1:", "adfort_digamma",
                         "GAMMA and LOG_GAMMA", "rename")
