"""A SAVE'd (or initialised) local carrying a value that depends on the
independents from one call to the next: each returning motion's adjoint of
the local started from zero, so the derivative through it was silently lost
(zero) under the split schedule, and the joint schedule's error advised the
split one.  It is rejected at the read, advising a module variable, whose
adjoint adfort carries across calls (checked here); passive SAVE'd state and
SAVE'd locals set before they are read keep working."""

import pytest

import harness
from test_cli import assert_clean_failure, run

CALLER = """\
  subroutine run(x, y)
    real(8), intent(in) :: x
    real(8), intent(out) :: y
    y = 0d0
    call keep(x, y, .true.)
    call keep(2d0*x, y, .false.)
    call keep(x**2, y, .false.)
  end subroutine run
end module m
"""

HEAD = """\
! adfort: routine=run dep=y indep=x
! adfort: init x=0.5:1.5 y=0
module m
  implicit none
"""

CARRIED = {
    # (declaration of prev, body of keep, line of the read)
    "save": ("real(8), save :: prev", """\
    if (.not. first) y = y + prev
    prev = x*x""", 11),
    "initial value": ("real(8) :: prev = 0d0", """\
    if (.not. first) y = y + prev
    prev = x*x""", 11),
    "read in one branch only": ("real(8), save :: prev", """\
    if (first) then
      prev = x
    else
      y = y + prev*x
      prev = prev + x
    end if""", 14),
    "element of an array": ("real(8), save :: prev(2)", """\
    prev(1) = x
    y = y + sin(prev(2))
    prev(2) = prev(1)*x""", 12),
}


def _keep(declaration, body):
    return f"""\
contains
  subroutine keep(x, y, first)
    real(8), intent(in) :: x
    real(8), intent(inout) :: y
    logical, intent(in) :: first
    {declaration}
{body}
  end subroutine keep
"""


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("case", sorted(CARRIED))
def test_saved_local_carrying_an_active_value_is_rejected(case, schedule, tmp_path):
    declaration, body, line = CARRIED[case]
    source = tmp_path / "k.f90"
    source.write_text(HEAD + _keep(declaration, body) + CALLER)
    result = run(["diff", str(source), "--routine", "run", "--dep", "y", "--indep", "x",
                  "--schedule", schedule], tmp_path)
    assert_clean_failure(result, tmp_path, f"k.f90:{line}:", "'prev' is a SAVE'd",
                         "carries a value depending on the independents",
                         "module variable")


WORKING = {
    # The value the advice moves to a module variable: its adjoint is kept.
    "module variable": HEAD.replace("implicit none\n", "implicit none\n  real(8) :: prev = 0d0\n")
    + _keep("", """\
    if (.not. first) y = y + prev
    prev = x*x""") + CALLER,
    # Set before it is read in every call: nothing carried.
    "set first": HEAD + _keep("real(8), save :: prev", """\
    prev = x*x
    if (.not. first) y = y + prev*x
    prev = prev + y""") + CALLER,
    # Passive state: a table built on the first call, a flag, a counter.
    "passive table": HEAD + _keep("real(8), save :: tab(3)\n    integer, save :: ncall = 0",
                                  """\
    integer :: i
    ncall = ncall + 1
    if (ncall == 1) then
      do i = 1, 3
        tab(i) = 0.5d0*i
      end do
    end if
    y = y + tab(2)*x**2 + tab(3)*x""") + CALLER,
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("case", sorted(WORKING))
def test_saved_state_adfort_can_differentiate(case, schedule, tmp_path):
    if case == "passive table" and schedule == "joint":
        pytest.skip("state changing what a callee reversed joint computes is rejected")
    harness.check_source(tmp_path, "k.f90", WORKING[case], schedule)


# F77 routines with a bare SAVE (every local kept): work arrays filled by a
# loop nest and read, within its ranges, by later ones carry nothing.
F77_SAVE = """\
C adfort: routine=COLRUN dep=COST indep=T
C adfort: init N=6 NT=3 T=250:300
      SUBROUTINE COLRUN(N, NT, T, COST)
      INTEGER N, NT, IT
      DOUBLE PRECISION T(N), COST
      COST = 0.0D0
      DO 10 IT = 1, NT
        CALL COLSTP(N, T, COST)
   10 CONTINUE
      END
      SUBROUTINE COLSTP(N, T, COST)
      SAVE
      INTEGER N, I, K
      INTEGER NMAX
      PARAMETER (NMAX = 100)
      DOUBLE PRECISION T(N), COST, W(NMAX), V(NMAX, 2)
      DO 10 I = 1, N
        W(I) = 0.01D0*T(I)**2
   10 CONTINUE
      DO 15 K = 1, 2
      DO 15 I = 1, N
        V(I, K) = W(I)*K
   15 CONTINUE
      DO 20 I = N, 2, -1
        T(I) = T(I) - 0.1D0*(W(I) - W(I-1))
   20 CONTINUE
      DO 30 I = 1, N
        COST = COST + W(I)*T(I) + V(I, 2)
   30 CONTINUE
      END
"""


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_f77_saved_work_arrays_filled_before_they_are_read(schedule, tmp_path):
    harness.check_source(tmp_path, "k.f", F77_SAVE, schedule)


@pytest.mark.parametrize("change, line", [
    # w(n+1) was not set by this call: the previous call's value.
    ("        T(I) = T(I) - 0.1D0*(W(I) - W(I-1))",
     "        T(I) = T(I) - 0.1D0*(W(I+1) - W(I-1))"),
    # The bound changes between the loop setting w and the one reading it.
    ("      DO 15 K = 1, 2", "      N = N + 0\n      DO 15 K = 1, 2"),
    # The loop filling w may skip elements.
    ("        W(I) = 0.01D0*T(I)**2",
     "        IF (T(I) .LT. 260.0D0) GO TO 10\n        W(I) = 0.01D0*T(I)**2"),
])
def test_f77_saved_work_array_read_beyond_what_the_call_set(change, line, tmp_path):
    source = tmp_path / "k.f"
    source.write_text(F77_SAVE.replace(change, line))
    assert source.read_text() != F77_SAVE
    result = run(["diff", str(source), "--routine", "colrun", "--dep", "cost", "--indep", "t"],
                 tmp_path)
    assert_clean_failure(result, tmp_path, "k.f:", "'w' is a SAVE'd",
                         "carries a value depending on the independents")


FIRST_CALL_TABLE = """\
C adfort: routine=CLDCOL dep=CWAT indep=T,Q
C adfort: init NZ=6 NC=3 T=250:300 Q=0.002:0.02 CWAT=0
      SUBROUTINE CLDCOL(NZ, NC, T, Q, CWAT)
      IMPLICIT DOUBLE PRECISION (A-H,O-Z)
      DIMENSION T(NZ,NC), Q(NZ,NC), CWAT(NC)
      DO 10 J = 1, NC
        CALL CONDNS(NZ, T(1,J), Q(1,J), CWAT(J))
   10 CONTINUE
      RETURN
      END
C     Saturation vapour pressure table built on the first call (CCM style)
      SUBROUTINE CONDNS(NZ, TC, QC, CW)
      IMPLICIT DOUBLE PRECISION (A-H,O-Z)
      DIMENSION TC(NZ), QC(NZ)
      PARAMETER (NTAB = 151, TMIN = 200.D0, DTAB = 1.D0)
      DIMENSION ESTAB(NTAB)
      LOGICAL {flag}
      SAVE {flag}, ESTAB
      DATA {flag} /{initial}/
      IF ({test}) THEN
        DO 5 I = 1, NTAB
          TT = TMIN + DTAB*DBLE(I-1)
          ESTAB(I) = 611.2D0*EXP(17.67D0*(TT - 273.15D0)/(TT - 29.65D0))
    5   CONTINUE
        {flag} = {cleared}
      END IF
      CW = 0.D0
      DO 20 K = 1, NZ
        P = 1.D5*(DBLE(K) - 0.5D0)/DBLE(NZ)
        X = (TC(K) - TMIN)/DTAB + 1.D0
        I = INT(X)
        W = X - DBLE(I)
        ES = (1.D0 - W)*ESTAB(I) + W*ESTAB(I+1)
        QS = 0.622D0*ES/(P - 0.378D0*ES)
        IF (QC(K) .GT. QS) THEN
          DQ = (QC(K) - QS)/(1.D0 + 2.5D6**2*QS/(1004.D0*461.5D0
     &         *TC(K)**2))
          QC(K) = QC(K) - DQ
          TC(K) = TC(K) + 2.5D6/1004.D0*DQ
          CW = CW + DQ*P*1.D-3
        END IF
   20 CONTINUE
      RETURN
      END
"""


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("flag", ["FIRST", "INITED"])
def test_table_built_on_the_first_call_is_run_again(flag, schedule, tmp_path):
    """A SAVE'd table a callee builds under a first-call flag: a joint
    reversal runs the callee twice, which leaves the table and the flag as
    they were (was rejected as state advanced twice)."""
    first = flag == "FIRST"
    text = FIRST_CALL_TABLE.replace("{flag}", flag).replace(
        "{initial}", ".TRUE." if first else ".FALSE.").replace(
        "{test}", flag if first else f".NOT. {flag}").replace(
        "{cleared}", ".FALSE." if first else ".TRUE.")
    harness.check_source(tmp_path, "k.f", text, schedule)
