"""A function reference with keyword arguments given derived-type
components, ``bulk_flux(cd=sfc%cd, wind=sfc%wind, …)``: fparser reads it
as a structure constructor whose values are procedure component
references, which PSyclone kept opaque and adfort refused ("unsupported
statement PROC_COMPONENT_REF").  adfort/parentheses.py reads them as the
data references they are (and a parenthesised one, ``dq=(sfc%dq)``, as
the expression it is)."""

import harness

SOURCE = """\
! adfort: routine=surface_fluxes dep=qflux indep=qs,wind
! adfort: init n=6 qs=0.010:0.015 wind=2:9 qa=0.008:0.012
module bulk_keywords
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  type :: surface_point
    real(wp) :: cd, wind, dq
  end type surface_point
contains
  pure real(wp) function bulk_flux(rho, cd, wind, dq)
    real(wp), intent(in) :: rho, cd, wind, dq
    bulk_flux = rho*cd*wind*dq
  end function bulk_flux

  subroutine surface_fluxes(n, qs, qa, wind, qflux)
    integer, intent(in) :: n
    real(wp), intent(in) :: qs(n), qa(n), wind(n)
    real(wp), intent(out) :: qflux(n)
    type(surface_point) :: sfc
    integer :: i
    do i = 1, n
      sfc%wind = sqrt(wind(i)**2 + 0.25_wp)
      sfc%cd = 1.2e-3_wp*(1.0_wp + 0.07_wp*sfc%wind)
      sfc%dq = qs(i) - qa(i)
      qflux(i) = bulk_flux(rho=1.2_wp, wind=sfc%wind, dq=(sfc%dq), cd=sfc%cd)
    end do
  end subroutine surface_fluxes
end module bulk_keywords
"""


def test_keyword_arguments_of_components_match_finite_differences(tmp_path):
    for schedule in ("split", "joint"):
        harness.check_source(tmp_path, "bulk_keywords.f90", SOURCE, schedule,
                             primal_tol=1e-12)
