"""A function reference with keyword arguments given derived-type
components, ``weight(w=p%w, s=s)``: fparser reads it as a structure
constructor whose values are procedure component references, which
PSyclone kept opaque and adfort refused ("unsupported statement
PROC_COMPONENT_REF").  adfort/parentheses.py reads them as the data
references they are (and a parenthesised one, ``w=(p%w)``, as the
expression it is)."""

import harness

SOURCE = """\
! adfort: routine=relax dep=y indep=x
! adfort: init n=6 x=0.5:1.5
module relax_kw
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  type :: pair
    real(wp) :: s, w
  end type pair
contains
  real(wp) function weight(s, w)
    real(wp), intent(in) :: s, w
    weight = s*w + 0.1_wp*s**2
  end function weight
  subroutine relax(n, x, y)
    integer, intent(in) :: n
    real(wp), intent(inout) :: x(n)
    real(wp), intent(out) :: y
    type(pair) :: p
    real(wp) :: s, w
    integer :: i
    y = 0.0_wp
    do i = 1, n
      p%s = x(i)
      p%w = 0.5_wp + 0.1_wp*x(i)
      s = weight(w=p%w, s=p%s)
      w = weight(s=(p%s), w=p%w)
      x(i) = x(i) - 0.2_wp*w*s
      y = y + s*x(i)
    end do
  end subroutine relax
end module relax_kw
"""


def test_keyword_arguments_of_components_match_finite_differences(tmp_path):
    source = tmp_path / "relax_kw.f90"
    source.write_text(SOURCE)
    for schedule in ("split", "joint"):
        res = harness.check_fixture(source, schedule, tmp_path / schedule)
        assert res.rel_err < 1e-6, res.describe()
        assert res.primal_err < 1e-12, res.describe()
