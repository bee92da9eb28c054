"""Short functions inlined into their callers (adfort/inlining.py).

Each kernel is FD-checked under both schedules.  The text checks say which
calls were inlined (no motions of the function are left) and which were
not (a function changing an argument, reading a COMMON member, with a
loop, OPTIONAL arguments, or given a literal of another kind)."""

import re

import pytest

import harness

CASES = {
    # minmod with an IF, in a loop, on array elements and on a local; the
    # value goes straight into an array element; called twice per statement.
    "muscl_minmod.f90": """\
        ! adfort: routine=slopes dep=cost indep=q
        ! adfort: init n=9 q=0:1
        module muscl_mod
          implicit none
          integer, parameter :: wp = kind(1.0d0)
          real(wp), parameter :: half = 0.5_wp
        contains
          pure real(wp) function minmod(a, b)
            real(wp), intent(in) :: a, b
            if (a*b <= 0.0_wp) then
              minmod = 0.0_wp
            else
              minmod = sign(min(abs(a), abs(b)), a)
            end if
          end function minmod

          subroutine slopes(n, q, cost)
            integer, intent(in) :: n
            real(wp), intent(inout) :: q(n)
            real(wp), intent(out) :: cost
            real(wp) :: s(n), d
            integer :: i
            s(1) = 0.0_wp
            s(n) = 0.0_wp
            do i = 2, n - 1
              d = q(i+1) - q(i)
              s(i) = minmod(q(i) - q(i-1), d)
            end do
            do i = 2, n - 1
              q(i) = q(i) + half*(minmod(s(i), s(i+1)) - minmod(s(i-1), s(i)))*q(i)
            end do
            cost = sum(q**2)
          end subroutine slopes
        end module muscl_mod
    """,
    # A function with locals, a module variable (not a constant) and a
    # function inlined into it; a function of another module with a
    # private constant and its own kind name; a logical function in an IF;
    # a function computing EXP (not inlined).
    "qsat_chain.f90": """\
        ! adfort: routine=column dep=qs,rh indep=t,p
        ! adfort: init n=6 t=260:300 p=50000:100000
        module consts
          implicit none
          integer, parameter :: r8 = selected_real_kind(12)
          real(r8), parameter, private :: eps = 0.622_r8
          public :: mixing
        contains
          real(r8) function mixing(e, p)
            real(r8), intent(in) :: e, p
            mixing = eps*e/(p - (1.0_r8 - eps)*e)
          end function mixing
        end module consts

        module sat_mod
          use consts, only: dp => r8, mixing
          implicit none
          real(dp) :: t0 = 273.15_dp
        contains
          real(dp) function esat(t)
            ! Lowe (1977) polynomial over water [Pa]
            real(dp), intent(in) :: t
            real(dp) :: tc
            tc = t - t0
            esat = 610.78_dp + tc*(44.365_dp + tc*(1.4289_dp + tc*(2.6506e-2_dp &
                 + tc*(3.0312e-4_dp + tc*(2.0341e-6_dp + tc*6.1368e-9_dp)))))
          end function esat

          real(dp) function esat_exp(t)
            real(dp), intent(in) :: t
            esat_exp = 611.2_dp*exp(17.67_dp*(t - t0)/(t - t0 + 243.5_dp))
          end function esat_exp

          real(dp) function qsat(t, p)
            real(dp), intent(in) :: t, p
            real(dp) :: es
            es = esat(t)
            qsat = mixing(es, p)
          end function qsat

          logical function cold(t)
            real(dp), intent(in) :: t
            cold = t < t0
          end function cold

          subroutine column(n, t, p, qs, rh)
            integer, intent(in) :: n
            real(dp), intent(in) :: t(n), p(n)
            real(dp), intent(out) :: qs(n), rh
            integer :: k
            rh = 0.0_dp
            do k = 1, n
              qs(k) = qsat(t(k), p(k))
              if (cold(t(k))) then
                qs(k) = 0.9_dp*qs(k)
              end if
              rh = rh + qsat(t(k) - 1.0_dp, p(k))*esat(t(k))/p(k) + 1.0e-6_dp*esat_exp(t(k))
            end do
          end subroutine column
        end module sat_mod
    """,
    # Functions that must not be inlined: one changing its argument, one
    # reading a COMMON member, one with a loop; F77 style, outside modules.
    "f77_not_inlined.f": """\
        ! adfort: routine=drive dep=y indep=x
        ! adfort: init n=5 x=0.5:1.5
              SUBROUTINE DRIVE(N, X, Y)
              INTEGER N, I
              DOUBLE PRECISION X(N), Y, W, SCALE, POLY, BUMP
              COMMON /PARS/ SCALE
              EXTERNAL SCALE1, POLY, BUMP
              DOUBLE PRECISION SCALE1
              SCALE = 1.5D0
              Y = 0.0D0
              DO 10 I = 1, N
                 W = X(I)
                 Y = Y + SCALE1(W)*X(I) + POLY(X(I), 3) + BUMP(X(I))
           10 CONTINUE
              END

              DOUBLE PRECISION FUNCTION SCALE1(W)
              DOUBLE PRECISION W
              W = 2.0D0*W
              SCALE1 = W*W
              END

              DOUBLE PRECISION FUNCTION POLY(X, M)
              INTEGER M, K
              DOUBLE PRECISION X
              POLY = 1.0D0
              DO 20 K = 1, M
                 POLY = POLY*X + 0.5D0
           20 CONTINUE
              END

              DOUBLE PRECISION FUNCTION BUMP(X)
              DOUBLE PRECISION X, SCALE
              COMMON /PARS/ SCALE
              BUMP = SCALE*X**2
              END
    """,
    # Arguments that are literals and constants; a result of another
    # type (integer truncation through the function's real result).
    "literal_arguments.f90": """\
        ! adfort: routine=lit dep=y indep=x
        ! adfort: init x=0.3:0.9
        module lit_mod
          implicit none
          integer, parameter :: wp = kind(1.0d0)
          real(wp), parameter :: two = 2.0_wp
        contains
          real(wp) function blend(a, b, w)
            real(wp), intent(in) :: a, b, w
            blend = (1.0_wp - w)*a + w*b
          end function blend

          subroutine lit(x, y)
            real(wp), intent(in) :: x
            real(wp), intent(out) :: y
            real(wp) :: z
            z = blend(x, two, 0.25_wp)
            y = blend(z, x*x, x) + blend(1.0_wp, z, 0.5_wp)*z
          end subroutine lit
        end module lit_mod
    """,
    # Short subroutines: two outputs into array elements, an update of an
    # argument; one changing an index another argument uses (not inlined).
    "subroutine_outputs.f90": """\
        ! adfort: routine=drive dep=cost indep=h
        ! adfort: init n=7 h=1:2
        module flux_mod
          implicit none
          integer, parameter :: wp = kind(1.0d0)
          real(wp) :: grav = 9.81_wp
        contains
          subroutine face(hl, hr, fh, fm)
            real(wp), intent(in) :: hl, hr
            real(wp), intent(out) :: fh, fm
            real(wp) :: c
            c = grav*max(hl, hr)**2 - abs(hl - hr)
            fh = 0.5_wp*(hl + hr) - 0.5_wp*c*(hr - hl)
            fm = fh*c
          end subroutine face

          subroutine accum(a, b)
            real(wp), intent(inout) :: a
            real(wp), intent(in) :: b
            a = a + b*b
            if (a > 10.0_wp) a = 10.0_wp + 0.1_wp*a
          end subroutine accum

          subroutine bump(k, v)
            integer, intent(inout) :: k
            real(wp), intent(inout) :: v
            k = k + 1
            v = v*1.5_wp + 0.1_wp*v**2
          end subroutine bump

          subroutine drive(n, h, cost)
            integer, intent(in) :: n
            real(wp), intent(inout) :: h(n)
            real(wp), intent(out) :: cost
            real(wp) :: fh(n), fm(n), s
            integer :: i, k
            fh = 0.0_wp
            fm = 0.0_wp
            do i = 1, n - 1
              call face(h(i), h(i+1), fh(i), fm(i))
            end do
            s = 0.0_wp
            k = 1
            do i = 1, n - 2
              call accum(s, fm(i) - fh(i+1))
              call bump(k, h(k))
            end do
            cost = s + sum(h*fh)
          end subroutine drive
        end module flux_mod
    """,
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients(tmp_path, name, schedule):
    harness.check_source(tmp_path, name, CASES[name], schedule)


def _text(tmp_path, name):
    return harness.differentiate_text(tmp_path, name, CASES[name]).lower()


def test_minmod_is_inlined(tmp_path):
    text = _text(tmp_path, "muscl_minmod.f90")
    assert "minmod_rec" not in text and "minmod_ret" not in text
    assert not re.search(r"call\s+minmod|minmod\(", text)
    assert "sign(" in harness.routine_source(text, "slopes_ret")


def test_chain_of_functions_across_modules_is_inlined(tmp_path):
    text = _text(tmp_path, "qsat_chain.f90")
    for name in ("qsat", "esat", "mixing", "cold"):
        assert f"{name}_rec" not in text, name
    assert not re.search(r"call\s+(qsat|esat|mixing|cold)\b|\b(qsat|esat|mixing|cold)\(", text)
    ret = harness.routine_source(text, "column_ret")
    # The private constant of module consts is copied into the caller's
    # reach; the module variable t0 is read where it is.
    assert "eps" in ret and "t0" in ret
    # A function computing EXP stays a call: its returning motion computes
    # the value again instead of the caller taping it.
    assert "esat_exp_rec" in text


def test_functions_with_side_effects_or_loops_are_called(tmp_path):
    text = _text(tmp_path, "f77_not_inlined.f")
    for name in ("scale1", "poly", "bump"):
        assert f"{name}_rec" in text, name


def test_literal_arguments_are_inlined(tmp_path):
    text = _text(tmp_path, "literal_arguments.f90")
    assert "blend_rec" not in text


def test_short_subroutines_are_inlined(tmp_path):
    text = _text(tmp_path, "subroutine_outputs.f90")
    assert "face_rec" not in text and "accum_rec" not in text
    # bump changes k, which h(k) names: inlined, h(k) would be another
    # element after k = k + 1.
    assert "bump_rec" in text
