"""Names modules give each other.  Generic interfaces whose specifics
differ by a named real kind (``sq_sp``
with ``real(sp)``, ``sq_dp`` with ``real(dp)``): adfort works out the kinds'
numbers (literals, ``KIND(1.0d0)``, ``SELECTED_REAL_KIND(p)``, ``real64``,
through imports and renames) to tell which specific a call invokes.  Only
literal kinds were told apart; every call was refused as ambiguous."""

import pytest

import harness

KINDS = {
    "literals": "integer, parameter :: sp = 4, dp = 8",
    "kind of literals": "integer, parameter :: sp = kind(1.0), dp = kind(1.0d0)",
    "selected_real_kind": "integer, parameter :: sp = selected_real_kind(6), "
                          "dp = selected_real_kind(15)",
    "iso_fortran_env": "use, intrinsic :: iso_fortran_env, only: real32, real64\n"
                       "  integer, parameter :: sp = real32, dp = real64",
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("kinds", sorted(KINDS))
def test_specific_of_a_generic_chosen_by_named_kind(kinds, schedule, tmp_path):
    harness.check_source(tmp_path, "k.f90", """\
! adfort: routine=run dep=y indep=x
! adfort: init x=0.5:1.5
module kinds
  KINDS
end module kinds
module gen
  use kinds, only: sp, wp => dp
  implicit none
  interface sq
    module procedure sq_sp, sq_dp
  end interface sq
contains
  subroutine sq_sp(t, q)
    real(sp), intent(in) :: t
    real(sp), intent(out) :: q
    q = t*t
  end subroutine sq_sp
  subroutine sq_dp(t, q)
    real(wp), intent(in) :: t
    real(wp), intent(out) :: q
    q = t*t*t
  end subroutine sq_dp
  subroutine run(x, y)
    real(wp), intent(in) :: x
    real(wp), intent(out) :: y
    call sq(x, y)
    y = y + x
  end subroutine run
end module gen
""".replace("KINDS", KINDS[kinds]), schedule)


MODULE_CHAINS = {
    # use consts_base, cpd => cp_dry (a rename without ONLY): PSyclone kept
    # the module as text, and nothing of it was seen.
    "rename without only": '! adfort: routine=run dep=y indep=x\n! adfort: init x=0.5:1.5\nmodule consts_base\n  implicit none\n  real(8), parameter :: cp_dry = 1004.0_8\nend module consts_base\nmodule consts\n  use consts_base, cpd => cp_dry\n  implicit none\n  real(8), parameter :: p0 = 1.0e5_8\nend module consts\nmodule top\n  use consts, only: p0, cpd\n  implicit none\ncontains\n  subroutine run(x, y)\n    real(8), intent(in) :: x\n    real(8), intent(out) :: y\n    y = p0 * x + cpd*x**2\n  end subroutine run\nend module top\n',
    # cconst has sigma_sb through its wildcard use of cbase; use cconst,
    # only: sigma_sb was an unknown type.
    "constant a module has from another": '! adfort: routine=run dep=y indep=x\n! adfort: init x=0.5:1.5\nmodule cbase\n  implicit none\n  real(8), parameter :: sigma_sb = 5.67e-8_8\nend module cbase\nmodule cconst\n  use cbase\n  implicit none\n  real(8), parameter :: p0 = 1.0e5_8\nend module cconst\nmodule top\n  use cconst, only: sigma_sb\n  implicit none\ncontains\n  subroutine run(x, y)\n    real(8), intent(in) :: x\n    real(8), intent(out) :: y\n    y = sigma_sb * x**4\n  end subroutine run\nend module top\n',
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("case", sorted(MODULE_CHAINS))
def test_names_through_module_chains(case, schedule, tmp_path):
    harness.check_source(tmp_path, "k.f90", MODULE_CHAINS[case], schedule)


QUAD_KINDS = {
    "literals": "integer, parameter :: dp = 8, qp = 16",
    "selected_real_kind": "integer, parameter :: dp = kind(1.0d0), "
                          "qp = selected_real_kind(30)",
    "iso_fortran_env": "use, intrinsic :: iso_fortran_env, only: dp => real64, qp => real128",
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("kinds", sorted(QUAD_KINDS))
def test_kind_of_a_conversion_is_the_kind_it_names(kinds, schedule, tmp_path):
    """``sq(real(x, qp))`` calls the real(qp) specific, and a temporary for
    ``real(x, kind=qp)`` is real(qp): the kind of REAL(x, k) (and DBLE)
    was taken from x, so the real(dp) specific was called with a real(dp)
    temporary (a wrong primal), and a direct call of the real(qp)
    specific did not compile.  (Quad precision rather than single: finite
    differences through real(4) values are too coarse to check.)"""
    harness.check_source(tmp_path, "q.f90", """\
! adfort: routine=run dep=y indep=x
! adfort: init x=0.5:1.5
module kinds
  KINDS
end module kinds
module gen
  use kinds, only: dp, qp
  implicit none
  interface sq
    module procedure sq_dp, sq_qp
  end interface sq
contains
  real(qp) function sq_qp(a)
    real(qp), intent(in) :: a
    sq_qp = a*a
  end function sq_qp
  real(dp) function sq_dp(a)
    real(dp), intent(in) :: a
    sq_dp = a*a*a
  end function sq_dp
  subroutine run(x, y)
    real(dp), intent(in) :: x
    real(dp), intent(out) :: y
    y = sq(x) + real(sq(real(x, qp)), dp) + real(sq_qp(real(2*x, kind=qp)), dp) &
        + sq(dble(real(x, qp))) + real(sq(real(x, 16)), kind=dp)
  end subroutine run
end module gen
""".replace("KINDS", QUAD_KINDS[kinds]), schedule)


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_kind_from_a_module_the_caller_uses_whole(schedule, tmp_path):
    """``use gen_mod`` then ``real(dp) :: x`` and ``sq(x)``: the caller's
    kind was not worked out through the wildcard use, and the call refused
    as ambiguous."""
    harness.check_source(tmp_path, "k.f90", """\
        ! adfort: routine=caller dep=y indep=x
        ! adfort: init x=0.5:2
        module gen_mod
          implicit none
          integer, parameter :: sp = 4, dp = 8
          interface sq
            module procedure sq4, sq8
          end interface sq
        contains
          function sq4(x) result(r)
            real(sp), intent(in) :: x
            real(sp) :: r
            r = x*x
          end function sq4
          function sq8(x) result(r)
            real(dp), intent(in) :: x
            real(dp) :: r
            r = x*x*x
          end function sq8
        end module gen_mod
        subroutine caller(x, y)
          use gen_mod
          real(dp), intent(in) :: x
          real(dp), intent(out) :: y
          y = sq(x) + 1d0
        end subroutine caller
        """, schedule)


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_non_elemental_specific_preferred_to_an_elemental_one(schedule, tmp_path):
    """A generic with an elemental specific and a rank-1 one: a rank-1
    argument fits both, and Fortran calls the non-elemental one (F2008
    12.5.5.2); adfort refused the call as ambiguous."""
    harness.check_source(tmp_path, "k.f90", """\
! adfort: routine=col dep=q indep=t
! adfort: init n=5 t=260:300 q=0
module sat
  implicit none
  interface esat
    module procedure esat_1d
    module procedure esat_el
  end interface
contains
  elemental real(8) function esat_el(t)
    real(8), intent(in) :: t
    esat_el = 611.2d0*exp(17.67d0*(t - 273.15d0)/(t - 29.65d0))
  end function
  function esat_1d(t) result(e)
    real(8), intent(in) :: t(:)
    real(8) :: e(size(t))
    integer :: k
    do k = 1, size(t)
      e(k) = 611.2d0*exp(17.67d0*(t(k) - 273.15d0)/(t(k) - 29.65d0))*(1d0 + 1d-3*k)
    end do
  end function
  subroutine col(n, t, q)
    integer, intent(in) :: n
    real(8), intent(in) :: t(n)
    real(8), intent(out) :: q(n)
    q = 0.622d0*esat(t)/1d5 + esat(t(1))*1d-6
  end subroutine
end module
""", schedule)
