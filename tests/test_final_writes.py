"""Final writes of r_rev's results made straight into their output copies
(adfort/final_writes.py): no push and no pop of the values they overwrite.
Each case is checked against finite differences under both schedules,
with r_rev's primal results compared to r's; the text checks say which
writes were redirected."""

import re
import shutil

import pytest

import harness

needs_gfortran = pytest.mark.skipif(shutil.which("gfortran") is None, reason="no gfortran")

# (source, names whose last write r_rev makes into the output copy)
CASES = {
    # A column update: the tendencies' adjoints read the old state.  The
    # temperature's update reads the new humidity, so only the
    # temperature's final write goes to its copy.
    "column_update.f90": ("""\
        ! adfort: routine=update dep=t,q indep=t,q
        ! adfort: init n=9 dt=60 t=260:300 q=0.002:0.012
        module column_update
          implicit none
          integer, parameter :: wp = kind(1.0d0)
        contains
          subroutine update(n, dt, t, q)
            integer, intent(in) :: n
            real(wp), intent(in) :: dt
            real(wp), intent(inout) :: t(n), q(n)
            real(wp) :: cond
            integer :: k
            do k = 1, n
              cond = 1.0e-4_wp*q(k)*exp(0.05_wp*(t(k) - 280.0_wp))
              if (t(k) > 275.0_wp) then
                q(k) = q(k) - dt*cond*t(k)/300.0_wp
              end if
              t(k) = t(k) + 2.5e3_wp*dt*cond*q(k)
            end do
          end subroutine update
        end module column_update
        """, {"t"}),
    # Rain updated twice per level (evaporation, then collection, each
    # under its own condition): each iteration copies the element as the
    # first update leaves it, and the second writes into the copy.
    "rain_twice.f90": ("""\
        ! adfort: routine=rain dep=qr,qc indep=qr,qc,qv
        ! adfort: init n=12 dt=10 qr=1e-4:1e-3 qc=0:2e-3 qv=0.006:0.012
        module rain_twice
          implicit none
          integer, parameter :: wp = kind(1.0d0)
        contains
          subroutine rain(n, dt, qv, qc, qr)
            integer, intent(in) :: n
            real(wp), intent(in) :: dt, qv(n)
            real(wp), intent(inout) :: qc(n), qr(n)
            real(wp) :: evap, coll
            integer :: k
            do k = 1, n
              if (qv(k) < 0.01_wp) then
                evap = 5.0e-3_wp*(0.01_wp - qv(k))*qr(k)**0.525_wp*dt
                qr(k) = qr(k) - evap
              end if
              if (qc(k) > 1.0e-3_wp) then
                coll = 2.2_wp*qc(k)*qr(k)**0.875_wp*dt
                qc(k) = qc(k) - coll
                qr(k) = qr(k) + coll
              end if
            end do
          end subroutine rain
        end module rain_twice
        """, {"qr", "qc"}),
    # The last write reads the element below, which the iteration before
    # wrote: the copy would hand it the old value.
    "stencil_update.f90": ("""\
        ! adfort: routine=smooth dep=a indep=a
        ! adfort: init n=11 a=0.5:1.5
        module stencil_update
          implicit none
          integer, parameter :: wp = kind(1.0d0)
        contains
          subroutine smooth(n, a)
            integer, intent(in) :: n
            real(wp), intent(inout) :: a(n)
            integer :: k
            do k = 2, n
              a(k) = a(k)*a(k) + 0.5_wp*a(k - 1)
            end do
          end subroutine smooth
        end module stencil_update
        """, set()),
    # Written whole in a time loop: each step reads the step before.
    "time_loop.f90": ("""\
        ! adfort: routine=steps dep=x indep=x
        ! adfort: init n=6 nt=4 x=0.5:1.5
        module time_loop
          implicit none
          integer, parameter :: wp = kind(1.0d0)
        contains
          subroutine steps(n, nt, x)
            integer, intent(in) :: n, nt
            real(wp), intent(inout) :: x(n)
            integer :: it
            do it = 1, nt
              x = x + 0.1_wp*sin(x)*x
            end do
          end subroutine steps
        end module time_loop
        """, set()),
    # Two branches write the element: both must reach the result.
    "two_writers.f90": ("""\
        ! adfort: routine=clip dep=h indep=h,c
        ! adfort: init n=10 h=-1:1 c=0.5:1.5
        module two_writers
          implicit none
          integer, parameter :: wp = kind(1.0d0)
        contains
          subroutine clip(n, c, h)
            integer, intent(in) :: n
            real(wp), intent(in) :: c(n)
            real(wp), intent(inout) :: h(n)
            integer :: k
            do k = 1, n
              if (h(k) > 0.0_wp) then
                h(k) = h(k)*h(k)*c(k)
              else
                h(k) = 0.1_wp*h(k)*c(k)*h(k)
              end if
            end do
          end subroutine clip
        end module two_writers
        """, set()),
}


@needs_gfortran
@pytest.mark.parametrize("schedule", ["joint", "split"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_final_writes_give_the_gradient_and_results(tmp_path, name, schedule):
    harness.check_source(tmp_path, name, CASES[name][0], schedule)


@pytest.mark.parametrize("name", sorted(CASES))
def test_which_final_writes_are_redirected(tmp_path, name):
    text, redirected = CASES[name]
    generated = harness.differentiate_text(tmp_path, name, text)
    routine = harness.parse_metadata(tmp_path / name).routine
    rev = harness.routine_source(generated, f"{routine}_rev")
    found = set(re.findall(r"^\s*(\w+)_out\(\w+\) = ", rev, re.MULTILINE))
    assert found == redirected, rev
    # r_rec keeps its pushes for callers that link the routine split; r_rev
    # pushes none for the writes redirected.
    rec = harness.routine_source(generated, f"{routine}_rec")
    assert "value_tape(value_tape_top + 1" in rec, rec
    for name in redirected:
        push = rf"value_tape\(value_tape_top \+ 1\) = {name}\b"
        assert len(re.findall(push, rev)) < len(re.findall(push, rec)), rev
