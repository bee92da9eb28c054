"""Values the returning motion computes again instead of receiving them on
the tape (adfort/handover.py): cases at the edge of what may be computed
again, checked against finite differences under both schedules (the
benchmarks/ kernels and test_tape_savings show what is left off the
tape)."""

import re
import shutil

import pytest

import harness

needs_gfortran = pytest.mark.skipif(shutil.which("gfortran") is None, reason="no gfortran")

CASES = {
    # The coefficient loop reads s, which is set again after it: the final
    # value the recording hands over is not the one the loop read.
    "coefficients_scale_reset.f90": """\
        ! adfort: routine=implicit_step dep=t indep=t,kz
        ! adfort: init n=9 dt=300.0 kz=1:5 t=260:300
        module column_scale_reset
          implicit none
          integer, parameter :: dp = kind(1.0d0)
        contains
          subroutine implicit_step(n, dt, kz, t)
            integer, intent(in) :: n
            real(dp), intent(in) :: dt, kz(0:n)
            real(dp), intent(inout) :: t(n)
            real(dp) :: a(n), b(n), c(n), cp(n), dq(n), den, s
            integer :: k
            s = dt/50.0_dp**2
            do k = 1, n
              a(k) = -s*kz(k-1)
              c(k) = -s*kz(k)
              if (k == 1) a(k) = 0.0_dp
              if (k == n) c(k) = 0.0_dp
              b(k) = 1.0_dp - a(k) - c(k)
            end do
            s = 2.0_dp*s
            cp(1) = c(1)/b(1)
            dq(1) = t(1)/b(1)
            do k = 2, n
              den = b(k) - a(k)*cp(k-1)
              cp(k) = c(k)/den
              dq(k) = (t(k) - a(k)*dq(k-1))/den
            end do
            t(n) = dq(n)
            do k = n - 1, 1, -1
              t(k) = dq(k) - cp(k)*t(k+1)
            end do
            t = t*(1.0_dp + 1.0e-3_dp*s)
          end subroutine implicit_step
        end module column_scale_reset
        """,
    # Coefficients from the state the routine then overwrites (not an
    # unchanged argument): they must stay on the tape.
    "coefficients_from_state.f90": """\
        ! adfort: routine=nonlinear_step dep=t indep=t
        ! adfort: init n=7 t=0.5:2
        module column_from_state
          implicit none
          integer, parameter :: dp = kind(1.0d0)
        contains
          subroutine nonlinear_step(n, t)
            integer, intent(in) :: n
            real(dp), intent(inout) :: t(n)
            real(dp) :: a(n), b(n), w
            integer :: k
            do k = 1, n
              a(k) = 0.1_dp*t(k)**2
              b(k) = 1.0_dp + a(k)
            end do
            do k = 1, n
              t(k) = t(k)/b(k)
            end do
            w = 0.0_dp
            do k = 1, n
              w = w + a(k)*t(k)
            end do
            t(1) = t(1) + w
          end subroutine nonlinear_step
        end module column_from_state
        """,
    # A forward sweep whose temporary is also set outside its loop: not
    # computed again (the copy would not reproduce it).
    "sweep_temporary_set_twice.f90": """\
        ! adfort: routine=sweep dep=x indep=d,b
        ! adfort: init n=6 b=2:3 d=-1:1
        module sweep_twice
          implicit none
          integer, parameter :: dp = kind(1.0d0)
        contains
          subroutine sweep(n, b, d, x)
            integer, intent(in) :: n
            real(dp), intent(in) :: b(n), d(n)
            real(dp), intent(out) :: x(n)
            real(dp) :: g(n), r
            integer :: k
            r = 0.5_dp
            g(1) = d(1)/b(1)
            do k = 2, n
              r = 0.5_dp/(b(k) - 0.5_dp*r)
              g(k) = (d(k) - 0.5_dp*g(k-1))*r
            end do
            x(n) = g(n)
            do k = n - 1, 1, -1
              x(k) = g(k) - r*x(k+1)
            end do
          end subroutine sweep
        end module sweep_twice
        """,
    # MUSCL-like slopes s of q, which the step updates at its end: s is
    # computed again just before the flux loop's reversal, once q is put
    # back (its index temporaries renamed: the flux loop sets ip too); g
    # reads w, which changes before g's reader: handed over.
    "late_slopes.f90": """\
        ! adfort: routine=steps dep=cost indep=q
        ! adfort: init n=8 nt=3 q=0.5:1.5
        module late_slopes
          implicit none
          integer, parameter :: wp = kind(1.0d0)
        contains
          subroutine step(n, q, w)
            integer, intent(in) :: n
            real(wp), intent(inout) :: q(n), w(n)
            real(wp) :: s(n), f(0:n), g(n), d
            integer :: i, im, ip
            do i = 1, n
              im = max(i - 1, 1)
              ip = min(i + 1, n)
              d = q(ip) - q(im)
              if (d > 0.0_wp) then
                s(i) = min(d, 2.0_wp*(q(i) - q(im)))
              else
                s(i) = max(d, 2.0_wp*(q(ip) - q(i)))
              end if
            end do
            do i = 1, n
              g(i) = w(i)*w(i)
            end do
            do i = 1, n
              w(i) = w(i) + 0.1_wp*q(i)
            end do
            f(0) = 0.0_wp
            do i = 1, n
              ip = min(i + 1, n)
              f(i) = (q(i) + 0.5_wp*s(i))*(q(ip) - 0.5_wp*s(ip))*g(i)
            end do
            do i = 1, n
              q(i) = q(i) - 0.2_wp*(f(i) - f(i-1))
            end do
          end subroutine step

          subroutine steps(n, nt, q, cost)
            integer, intent(in) :: n, nt
            real(wp), intent(inout) :: q(n)
            real(wp), intent(out) :: cost
            real(wp) :: w(n)
            integer :: it
            w = q
            do it = 1, nt
              call step(n, q, w)
            end do
            cost = sum(q*w)
          end subroutine steps
        end module late_slopes
        """,
    # A function's EXP value is its result: its returning motion copies
    # the result it is given back instead of a pushed value.  The caller's
    # adjoint reads neither value (linear in them), and overwrites them at
    # each iteration: it must keep them for the function's reversal.  The
    # subroutine gives its EXP value whole to an intent(out) argument the
    # caller overwrites after; the last function sets its result in an IF.
    "results_copied_back.f90": """\
        ! adfort: routine=column dep=q indep=t,q
        ! adfort: init n=6 t=250:300 q=0.001:0.01
        module results_copied_back
          implicit none
          integer, parameter :: wp = kind(1.0d0)
        contains
          function esat(t)
            real(wp), intent(in) :: t
            real(wp) :: esat
            esat = exp(21.4_wp - 5420.0_wp/t)
          end function esat

          subroutine esat_ice(t, e, de)
            real(wp), intent(in) :: t
            real(wp), intent(out) :: e, de
            real(wp) :: x
            x = exp(24.3_wp - 6150.0_wp/t)
            e = x
            de = 6150.0_wp/t**2
          end subroutine esat_ice

          function ramp(t)
            real(wp), intent(in) :: t
            real(wp) :: ramp, v
            v = exp(0.01_wp*(t - 270.0_wp))
            if (t > 0.0_wp) then
              ramp = v
            else
              ramp = 0.0_wp
            end if
          end function ramp

          subroutine column(n, t, q)
            integer, intent(in) :: n
            real(wp), intent(in) :: t(n)
            real(wp), intent(inout) :: q(n)
            real(wp) :: e, ei, dei, r
            integer :: k
            do k = 1, n
              e = esat(t(k))
              call esat_ice(t(k), ei, dei)
              r = ramp(t(k))
              q(k) = q(k) + 1.0e-6_wp*e - 2.0e-6_wp*ei + 1.0e-3_wp*r + 1.0e-4_wp*q(k)*dei
              e = 0.0_wp
              ei = 1.0_wp
              r = 2.0_wp
            end do
          end subroutine column
        end module results_copied_back
        """,
}


@needs_gfortran
@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_computed_again_at_the_edges(tmp_path, name, schedule):
    harness.check_source(tmp_path, name, CASES[name], schedule)


def test_slopes_of_a_state_updated_later_are_computed_again_late(tmp_path):
    text = harness.differentiate_text(tmp_path, "late_slopes.f90",
                                      CASES["late_slopes.f90"]).lower()
    rec = harness.routine_source(text, "step_rec")
    ret = harness.routine_source(text, "step_ret")
    # s is not handed over: step_ret computes it again with its own
    # temporaries, after the reversed update of q and before the reversed
    # flux loop; g is handed over.
    assert not re.search(r"\bs = value_tape", ret) and "= s\n" not in rec, rec
    assert re.search(r"\bg = value_tape", ret), ret
    again = ret.index("d_again = q(ip_again) - q(im_again)")
    assert ret.index("q(i) = value_tape") < again < ret.index("s_adj(i) = s_adj(i) +"), ret


def test_costly_values_given_whole_to_a_result_are_copied_back(tmp_path):
    text = harness.differentiate_text(tmp_path, "results_copied_back.f90",
                                      CASES["results_copied_back.f90"]).lower()
    # The function's and the subroutine's EXP values are not handed over:
    # their returning motions copy them back from the result and the
    # argument they are given.  The one set under an IF is handed over.
    for name, copy in (("esat", "exp_value = esat\n"), ("esat_ice", "exp_value = e\n")):
        rec = harness.routine_source(text, f"{name}_rec")
        ret = harness.routine_source(text, f"{name}_ret")
        assert "value_tape" not in rec and copy in ret, (rec, ret)
    assert "= exp_value\n" in harness.routine_source(text, "ramp_rec")
