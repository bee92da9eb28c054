"""What the reversal of a fixed-point or checkpointed loop reads besides
the state its step iterates (adfort/transformations/fixed_point.py,
adfort/transformations/checkpoint.py): the loop's reversal runs the step
again, so the values the step reads on entry must be there in the
returning motion, and the parts of the state array the step reads but
never writes are inputs of the fixed-point map."""

import re

import pytest

import harness

SCHEDULES = ["split", "joint"]

# A Newton iteration for a wet-bulb-like temperature: the step reads the
# local tk (= t), set before the loop; its returning motion alone does not
# (f is linear in tk), so tk was never given to the returning motion, whose
# recorded steps then ran on an uninitialised tk (rel_err 1).
NEWTON = """\
! adfort: routine=wb dep=cost indep=t
! adfort: init t=255:300 q=0.001:0.008
module wb_mod
  implicit none
contains
  subroutine wb(t, q, cost)
    real(8), intent(in) :: t, q
    real(8), intent(out) :: cost
    real(8) :: tw, dtw, f, df, es, tk
    tk = t
    tw = tk - 2.0d0
    dtw = 1.0d0
    !$adfort fixed-point(tol=1e-14, maxiter=200)
    do while (abs(dtw) > 1.0d-12)
      es = exp(0.07d0*(tw - 273.15d0))*1.0d-2
      f = (tk - tw) - 2500.0d0*(es - q)
      df = -1.0d0 - 2500.0d0*0.07d0*es
      dtw = -f/df
      tw = tw + dtw
    end do
    cost = (tw - 273.15d0)**2
  end subroutine wb
end module wb_mod
"""

# The same for a checkpointed loop, whose reversal advances from snapshots:
# the step reads tk, its returning motion does not (rel_err 0.38).
CHECKPOINTED = """\
! adfort: routine=ck dep=cost indep=t
! adfort: init t=1:2
module ck_mod
  implicit none
contains
  subroutine ck(t, cost)
    real(8), intent(in) :: t
    real(8), intent(out) :: cost
    real(8) :: tw, tk
    integer :: i
    tk = t
    tw = tk - 2.0d0
    !$adfort checkpoint binomial(snapshots=2)
    do i = 1, 10
      tw = 0.5d0*sin(tw) + tk
    end do
    cost = tw**2
  end subroutine ck
end module ck_mod
"""


# A boundary value x(0) = a set before the loop, read by every step and
# never written (the step sets x(1) only), also read after the loop: its
# adjoint was zeroed with the initial guess's (rel_err 1).
BOUNDARY = """\
! adfort: routine=fpbc dep=y indep=a,b
! adfort: init a=1:2 b=0.5:1
module fpbc_mod
  implicit none
contains
  subroutine fpbc(a, b, y)
    real(8), intent(in) :: a, b
    real(8), intent(out) :: y
    real(8) :: x(0:2), res
    integer :: iter
    x = 0.0d0
    x(0) = a
    x(2) = b
    res = 1.0d0
    iter = 0
    !$adfort fixed-point(tol=1e-14, maxiter=500)
    do while (res > 1.0d-15 .and. iter < 500)
      iter = iter + 1
      res = abs(0.25d0*(x(0) + x(2) + sin(x(1))) - x(1))
      x(1) = 0.25d0*(x(0) + x(2) + sin(x(1)))
    end do
    y = x(1)**2 + x(0)*x(2)
  end subroutine fpbc
end module fpbc_mod
"""

# Ghost cells t(0), t(n+1) of a Gauss-Seidel sweep over odd then even
# levels (loops of stride 2: adfort cannot tell which elements the step
# sets, the state is t whole).
GHOST = """\
! adfort: routine=column dep=cost indep=tsurf,kd,tb
! adfort: init n=6 tsurf=1:2 kd=0.5:1.5 tb=0.5:1 tobs=0:1
module column_mod
  implicit none
contains
  subroutine sweep(n, kd, t, res)
    integer, intent(in) :: n
    real(8), intent(in) :: kd
    real(8), intent(inout) :: t(0:n+1)
    real(8), intent(out) :: res
    real(8) :: tnew, c
    integer :: k
    res = 0.0d0
    do k = 1, n, 2
      c = kd*(1.0d0 + 0.1d0*t(k)**2)
      tnew = (t(k-1) + t(k+1) + c)/(2.0d0 + 0.1d0*c)
      res = max(res, abs(tnew - t(k)))
      t(k) = tnew
    end do
    do k = 2, n, 2
      c = kd*(1.0d0 + 0.1d0*t(k)**2)
      tnew = (t(k-1) + t(k+1) + c)/(2.0d0 + 0.1d0*c)
      res = max(res, abs(tnew - t(k)))
      t(k) = tnew
    end do
  end subroutine sweep

  subroutine column(n, tsurf, kd, tb, tobs, cost)
    integer, intent(in) :: n
    real(8), intent(in) :: tsurf, kd, tb, tobs(n)
    real(8), intent(out) :: cost
    real(8) :: t(0:n+1), res
    integer :: iter
    t = 0.0d0
    t(0) = tsurf
    t(n+1) = tb
    res = 1.0d0
    iter = 0
    !$adfort fixed-point(tol=1e-14, maxiter=5000)
    do while (res > 1.0d-14 .and. iter < 5000)
      iter = iter + 1
      call sweep(n, kd, t, res)
    end do
    cost = 0.5d0*sum((t(1:n) - tobs)**2) + t(0)*t(n)
  end subroutine column
end module column_mod
"""


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_fixed_point_boundary_value_of_the_state_array(schedule, tmp_path):
    harness.check_source(tmp_path, "fpbc.f90", BOUNDARY, schedule)


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_fixed_point_ghost_cells_of_a_red_black_sweep(schedule, tmp_path):
    harness.check_source(tmp_path, "column.f90", GHOST, schedule)


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_fixed_point_step_reads_a_local_set_before_the_loop(schedule, tmp_path):
    harness.check_source(tmp_path, "wb.f90", NEWTON, schedule)


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_checkpointed_step_reads_a_local_set_before_the_loop(schedule, tmp_path):
    harness.check_source(tmp_path, "ck.f90", CHECKPOINTED, schedule)


# A step short enough to be inlined (two scalar assignments): inlining put
# its statements in place of the call, and the loop was then reversed
# iteration by iteration, the directive silently ignored.
SHORT_STEP = """\
! adfort: routine=fpsqrt dep=y indep=a
! adfort: init a=1:2 c=0.5:1
module fpsqrt_mod
contains
  subroutine fpsqrt(a, c, y)
    real(8), intent(in) :: a, c
    real(8), intent(out) :: y
    real(8) :: x, dx, ak
    integer :: i
    ak = a
    x = ak
    dx = 1.0d0
    !$adfort fixed-point(tol=1e-14, maxiter=200)
    do while (abs(dx) > 1.0d-14)
      dx = -(c*x*x - ak)/(2.0d0*c*x)
      x = x + dx
    end do
    y = x
    !$adfort checkpoint binomial(snapshots=2)
    do i = 1, 6
      y = y - 0.1d0*y*y
    end do
  end subroutine fpsqrt
end module fpsqrt_mod
"""


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_short_steps_are_not_inlined(schedule, tmp_path):
    result = harness.check_source(tmp_path, "fpsqrt.f90", SHORT_STEP, schedule)
    text = result.generated.read_text()
    assert "call fpsqrt_fp_step_rec(" in text and "fp_count" in text
    assert re.search(r"call fpsqrt_ckpt_step\w*_rec\(", text)
