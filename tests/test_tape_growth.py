"""Tapes far larger than their initial allocation (1024 entries).

A loop of 10**6 iterations updating a scalar state nonlinearly records
(at least) one tape entry per iteration, and a DO WHILE loop with a trip
count of about 10**5 that is unknown until run time must grow its tapes
while recording.  The adjoints are compiled with -O2 (plus bounds
checking, so an overflowing tape is an error rather than silent memory
corruption) and checked against central finite differences.

The dynamics relax towards a fixed point over about one e-folding time,
so the final state still remembers its initial value and the finite
differences are well conditioned (no chaos, no growth of rounding error).
"""

import pytest

import harness

TOL = 1e-6
FFLAGS = ["-O2", "-fcheck=bounds", "-ffpe-trap=invalid,zero,overflow"]
SCHEDULES = ["split", "joint"]

LONG_DO = """\
! s' = x*sin(s) + p - s**2 integrated with n forward-Euler steps over t=1
! adfort: routine=relax_long dep=s indep=s,x,p
! adfort: init n=1000000 s=0.5:1.5 x=0.5:1 p=0.1:0.3
module long_loop_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine relax_long(n, x, p, s)
    integer, intent(in) :: n
    real(wp), intent(in) :: x, p
    real(wp), intent(inout) :: s
    real(wp) :: dt
    integer :: i
    dt = 1.0_wp/real(n, wp)
    do i = 1, n
      s = s + dt*(x*sin(s) + p - s*s)
    end do
  end subroutine relax_long
end module long_loop_mod
"""

LONG_WHILE = """\
! The same relaxation with a variable time step until t >= tend: the
! trip count (about tend/1e-5) is only known at run time; the step
! depends on passive data only, so the count does not change under the
! finite-difference perturbations.
! adfort: routine=relax_until dep=s,y indep=s,x,p
! adfort: init tend=1 s=0.5:1.5 x=0.5:1 p=0.1:0.3
module long_while_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine relax_until(tend, x, p, s, y)
    real(wp), intent(in) :: tend, x, p
    real(wp), intent(inout) :: s
    real(wp), intent(out) :: y
    real(wp) :: t, dt
    integer :: k
    t = 0.0_wp
    k = 0
    y = 0.0_wp
    do while (t < tend)
      k = k + 1
      dt = 1.0e-5_wp*(1.0_wp + 0.5_wp*sin(1.0e-3_wp*real(k, wp)))
      s = s + dt*(x*sin(s) + p - s*s)
      y = y + dt*s**2
      t = t + dt
    end do
  end subroutine relax_until
end module long_while_mod
"""


def _write(workdir, name, text):
    path = workdir / name
    path.write_text(text)
    return path


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_million_iteration_do_loop(schedule, workdir):
    src = _write(workdir, "long_loop.f90", LONG_DO)
    res = harness.check_fixture(src, schedule, workdir / "run",
                                run_fflags=FFLAGS, timeout=300)
    assert res.rel_err < TOL, res.describe()
    assert res.primal_err < 1e-12, res.describe()


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_do_while_with_run_time_trip_count(schedule, workdir):
    src = _write(workdir, "long_while.f90", LONG_WHILE)
    res = harness.check_fixture(src, schedule, workdir / "run",
                                run_fflags=FFLAGS, timeout=300)
    assert res.rel_err < TOL, res.describe()
    assert res.primal_err < 1e-12, res.describe()
