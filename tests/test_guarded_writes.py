"""A loop running over a wider range than the array it writes, an IF (or a
CYCLE, an EXIT, an F77 ``IF … GOTO``) keeping the write within the
array's bounds: the sea-ice loop ``do n = 0, ncat`` whose ``n = 0`` is open
water and whose other iterations set ``g(n)`` of ``g(ncat)``.

The section adfort saves, restores, hands over or zeroes for such a write
was once taken from the loop bounds alone: ``g(0:)`` of ``g(ncat)`` was
taped, put back and its adjoint zeroed (``g_adj(0:) = 0``), out of bounds
(with pooled work arrays ``g_adj(0)`` was the last element of ``g``: a
silently wrong gradient), and a caller under the joint schedule saved and
put back ``t(0:)`` of a callee's dummy ``t(n)``, ``T(:N+1)`` of a COMMON
member ``T(4)``.  A section a write that may be skipped covers is now kept
within the array's declared bounds.  The harness compiles the adjoint with
``-fcheck=all``: a section out of bounds fails the run.
"""

import re

import pytest

import harness

def _ice_module(module, outer, loop):
    """An ITD-style module: `part` sets g(1:ncat) of g(ncat) in a loop over
    n = 0, ncat guarded as `loop` says (n = 0 is open water), `outer` calls it."""
    return f"""\
! adfort: routine={outer} dep=w indep=aice0,aicen
! adfort: init ncat=4 aice0=0.05:0.15 aicen=0.05:0.2
module {module}
contains
  subroutine part(ncat, aice0, aicen, z)
    integer, intent(in) :: ncat
    real(8), intent(in) :: aice0, aicen(ncat)
    real(8), intent(out) :: z
    real(8) :: g(ncat), g0
    integer :: n
{loop}    z = g0
    do n = 1, ncat
      z = z + g(n)**2
    end do
  end subroutine part
  subroutine {outer}(ncat, aice0, aicen, w)
    integer, intent(in) :: ncat
    real(8), intent(in) :: aice0, aicen(ncat)
    real(8), intent(out) :: w
    real(8) :: z
    call part(ncat, aice0, aicen, z)
    w = z**2
  end subroutine {outer}
end module {module}
"""


OPEN_WATER = _ice_module("m2", "outer2", """\
    do n = 0, ncat
      if (n == 0) then
        g0 = exp(-aice0/0.05d0)
      else
        g(n) = exp(-aicen(n)/0.05d0)
      end if
    end do
""")

# The write below the array's lower bound: work_adj(-1:) was zeroed.
BELOW_LOWER = """\
! adfort: routine=s dep=y indep=x
! adfort: init n=5 x=0.1:0.9
module m
contains
  subroutine s(n, x, y)
    integer, intent(in) :: n
    real(8), intent(in) :: x(n)
    real(8), intent(out) :: y
    real(8) :: work(0:n)
    integer :: k
    do k = -1, n
      if (k >= 0) work(k) = exp(-x(max(k, 1)))
    end do
    y = 0d0
    do k = 1, n
      y = y + work(k-1)*work(k)
    end do
  end subroutine s
end module m
"""

# Past the upper bound: g(:n+1) of g(n) was taped (and the EXIT case).
PAST_UPPER = """\
! adfort: routine={routine} dep=w indep=x
! adfort: init n=4 x=0.1:0.9
module m3
contains
  subroutine part(n, x, z)
    integer, intent(in) :: n
    real(8), intent(in) :: x(n)
    real(8), intent(out) :: z
    real(8) :: g(n)
    integer :: k
    do k = 1, n + 3
      if (k > n) exit
      g(k) = exp(-x(k))
    end do
    z = 0d0
    do k = 1, n
      z = z + g(k)**2
    end do
  end subroutine part
  subroutine part2(n, x, z)
    integer, intent(in) :: n
    real(8), intent(in) :: x(n)
    real(8), intent(out) :: z
    real(8) :: g(n)
    integer :: k
    do k = 0, n
      if (k < n) g(k+1) = exp(-x(k+1))
    end do
    z = 0d0
    do k = 1, n
      z = z + g(k)**2
    end do
  end subroutine part2
  subroutine outer(n, x, w)
    integer, intent(in) :: n
    real(8), intent(in) :: x(n)
    real(8), intent(out) :: w
    real(8) :: z
    call part(n, x, z)
    w = z**2
  end subroutine outer
  subroutine outer2(n, x, w)
    integer, intent(in) :: n
    real(8), intent(in) :: x(n)
    real(8), intent(out) :: w
    real(8) :: z
    call part2(n, x, z)
    w = z**2
  end subroutine outer2
end module m3
"""

CYCLE = _ice_module("mc", "outer", """\
    g0 = exp(-aice0/0.05d0)
    do n = 0, ncat
      if (n == 0) cycle
      g(n) = exp(-aicen(n)/0.05d0)*g0
    end do
""")

# FORTRAN 77: a GO TO the loop's CONTINUE skips the write past N.
F77_GOTO = """\
C adfort: routine=TOP dep=Z indep=X
C adfort: init N=4 X=0.1:0.9
      SUBROUTINE PART(N, X, Z)
      INTEGER N, K
      DOUBLE PRECISION X(N), Z, G(4)
      DO 10 K = 1, N + 1
         IF (K .GT. N) GOTO 10
         G(K) = EXP(-X(K))
   10 CONTINUE
      Z = 0D0
      DO 20 K = 1, N
         Z = Z + G(K)**2
   20 CONTINUE
      END
      SUBROUTINE TOP(N, X, Z)
      INTEGER N
      DOUBLE PRECISION X(N), Z, Y
      CALL PART(N, X, Y)
      Z = Y**2
      END
"""

# The joint schedule puts back what the callee changes of its dummy t(n).
JOINT_DUMMY = """\
! adfort: routine=outer dep=z indep=t,q
! adfort: init n=4 t=0.1:0.5 q=0.3
module m4
contains
  subroutine relax(n, t, q)
    integer, intent(in) :: n
    real(8), intent(inout) :: t(n)
    real(8), intent(in) :: q
    integer :: k
    do k = 0, n
      if (k > 0) t(k) = t(k) + q*t(k)**2
    end do
  end subroutine relax
  subroutine outer(n, t, q, z)
    integer, intent(in) :: n
    real(8), intent(inout) :: t(n)
    real(8), intent(in) :: q
    real(8), intent(out) :: z
    integer :: it
    do it = 1, 2
      call relax(n, t, q)
    end do
    z = sum(t**2)
  end subroutine outer
end module m4
"""

# ... and of a COMMON member T(4), written by a loop to N + 1.
JOINT_COMMON = """\
C adfort: routine=DRIVE dep=Z indep=Q
C adfort: init N=4 Q=0.3
      SUBROUTINE HEAT(N, Q)
      DOUBLE PRECISION T, S, Q
      COMMON /ST/ T(4), S(4)
      DO 10 K = 1, N + 1
         IF (K .GT. N) GOTO 10
         T(K) = T(K) + Q*S(K)*T(K)**2
   10 CONTINUE
      END
      SUBROUTINE SETUP
      DOUBLE PRECISION T, S
      COMMON /ST/ T(4), S(4)
      DO 10 K = 1, 4
         T(K) = 0.1D0*K
         S(K) = 0.2D0 + 0.1D0*K
   10 CONTINUE
      END
      SUBROUTINE DRIVE(N, Q, Z)
      DOUBLE PRECISION T, S, Q, Z
      COMMON /ST/ T(4), S(4)
      CALL SETUP
      CALL HEAT(N, Q)
      CALL HEAT(N, Q)
      Z = T(1)*S(1) + T(2)**2 + T(4)*S(1)
      END
"""

# Two writes per iteration, saved once before the loop (loop_snapshots).
SNAPSHOT = """\
! adfort: routine=adjust dep=y indep=th,d
! adfort: init n=4 th=0.5:1.5 d=0.1:0.3
subroutine adjust(n, th, d, y)
  integer, intent(in) :: n
  real(8), intent(inout) :: th(n)
  real(8), intent(in) :: d(n)
  real(8), intent(out) :: y
  integer :: k
  y = th(1)*th(n)
  do k = 0, n
    if (k > 0) then
      th(k) = th(k) + 0.5d0*d(k)
      th(k) = th(k) - 0.25d0*d(k)**2
    end if
  end do
  y = y*sum(th**2)
end subroutine adjust
"""

SCHEDULES = ["split", "joint"]


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_open_water_loop(schedule, tmp_path):
    harness.check_source(tmp_path, "open_water.f90", OPEN_WATER, schedule)


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_guarded_write_below_the_lower_bound(schedule, tmp_path):
    harness.check_source(tmp_path, "below.f90", BELOW_LOWER, schedule)


@pytest.mark.parametrize("schedule", SCHEDULES)
@pytest.mark.parametrize("routine", ["outer", "outer2"])
def test_guarded_write_past_the_upper_bound(routine, schedule, tmp_path):
    harness.check_source(tmp_path, "past.f90", PAST_UPPER.format(routine=routine), schedule)


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_cycle_guarded_loop(schedule, tmp_path):
    harness.check_source(tmp_path, "cycle.f90", CYCLE, schedule)


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_f77_goto_guarded_loop(schedule, tmp_path):
    harness.check_source(tmp_path, "goto.f", F77_GOTO, schedule)


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_callee_dummy_put_back(schedule, tmp_path):
    harness.check_source(tmp_path, "dummy.f90", JOINT_DUMMY, schedule)


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_common_member_put_back(schedule, tmp_path):
    harness.check_source(tmp_path, "common.f", JOINT_COMMON, schedule)


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_loop_saved_before_it_runs(schedule, tmp_path):
    harness.check_source(tmp_path, "snapshot.f90", SNAPSHOT, schedule)


def test_sections_stay_readable(tmp_path):
    """A bound provably inside is kept, one provably outside is the
    declared bound: ``g(0:ncat)`` of ``g(ncat)`` is all of ``g``, saved
    whole, with no MAX or MIN."""
    text = harness.differentiate_text(tmp_path, "open_water.f90", OPEN_WATER).lower()
    assert re.search(r"^ *value_tape\(.*\) = g$", text, re.M), text
    for line in text.splitlines():
        if re.search(r"\bg(_adj)?\(", line) and "value_tape" in line:
            assert not re.search(r"\b(max|min)\(", line), line


def test_clamped_where_the_declaration_does_not_decide(tmp_path):
    """``do n = 0, ncat`` on ``g(nmax)``: the section is ``g(1:MIN(nmax,
    ncat))``, the lower bound folded."""
    source = OPEN_WATER.replace("g(ncat), g0", "g(nmax), g0").replace(
        "subroutine part(ncat,", "subroutine part(nmax, ncat,").replace(
        "call part(ncat,", "call part(ncat + 2, ncat,").replace(
        "integer, intent(in) :: ncat\n    real(8), intent(in) :: aice0, aicen(ncat)\n"
        "    real(8), intent(out) :: z\n",
        "integer, intent(in) :: ncat, nmax\n    real(8), intent(in) :: aice0, aicen(ncat)\n"
        "    real(8), intent(out) :: z\n", 1)
    assert "g(nmax)" in source and "ncat, nmax" in source
    text = harness.differentiate_text(tmp_path, "nmax.f90", source).lower().replace(" ", "")
    assert "=g(:min(nmax,ncat))" in text, text
    assert "g(0" not in text and "g_adj(0" not in text, text
    harness.check_source(tmp_path, "nmax.f90", source, "split")
