"""An element of an assumed-size array starting an array a callee
overwrites (``CALL DCOPY(N, R, 1, A(1,J), 1)``): the caller saves what the
callee's dummy reaches (``a(k:k+n-1)``, whole columns of ``a(lda, *)``),
an assumed-size array having no last bound to save up to (the generated
code once read ``SIZE(a(1:))`` and did not compile)."""

import subprocess
import sys
import textwrap

import pytest

import harness

CALLEE = """\
      SUBROUTINE CPY(N, R, X)
      DOUBLE PRECISION R(N), X(N)
      DO 10 I = 1, N
         X(I) = R(I)
   10 CONTINUE
      END
"""

CASES = {
    "vector": """\
C adfort: routine=TOP dep=COST indep=A
C adfort: init N=4 A=0.5:1.5 COST=0
C adfort: shape A=N
      SUBROUTINE TOP(N, A, COST)
      DOUBLE PRECISION A(*), COST, R(10)
      DO 5 K = 1, N
         R(K) = A(K)**2
    5 CONTINUE
      CALL CPY(N - 1, R, A(2))
      COST = A(1)*A(2) + A(3)*A(N)
      END
""",
    "columns of a matrix": """\
C adfort: routine=TOP dep=COST indep=A
C adfort: init LDA=4 N=3 A=0.5:1.5 COST=0
C adfort: shape A=LDA,N
      SUBROUTINE TOP(LDA, N, A, COST)
      DOUBLE PRECISION A(LDA,*), COST, R(10)
      DO 10 J = 1, N
         DO 5 K = 1, LDA
            R(K) = A(K,J)**2 + A(1,1)
    5    CONTINUE
         CALL CPY(LDA, R, A(1,J))
   10 CONTINUE
      COST = A(1,1)*A(2,2) + A(LDA,N)
      END
""",
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_element_of_assumed_size_array_given_to_a_writing_callee(case, schedule, tmp_path):
    harness.check_source(tmp_path, "k.f", CASES[case] + CALLEE, schedule)


def test_element_of_a_rank_three_assumed_size_array_is_a_clear_error(tmp_path):
    source = tmp_path / "k.f"
    source.write_text(textwrap.dedent("""\
      SUBROUTINE TOP(L, M, A, COST)
      DOUBLE PRECISION A(L,M,*), COST, R(10)
      DO 5 K = 1, L
         R(K) = A(K,1,1)**2
    5 CONTINUE
      CALL CPY(L, R, A(1,1,2))
      COST = A(1,1,1)*A(1,1,2)
      END
""") + CALLEE)
    out = tmp_path / "k_ad.f90"
    done = subprocess.run([sys.executable, "-m", "adfort", "diff", str(source), "--routine",
                           "TOP", "--dep", "COST", "--indep", "A", "-o", str(out)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "k.f:6" in done.stderr and "assumed-size array 'a'" in done.stderr.lower(), done.stderr
    assert not out.exists()


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_assumed_size_dummy_written_at_neighbours_in_a_loop(schedule, tmp_path):
    # t(k) and t(k+1) set under an IF in a loop: the snapshot of what the
    # loop writes, t(1:n), was clamped to t's upper bound, which x(*) does
    # not have (the code named an undeclared placeholder).
    harness.check_source(tmp_path, "k.f90", """\
        ! adfort: routine=top dep=cost indep=x
        ! adfort: init n=5 x=0.5:1.5
        subroutine adj(n, t)
          integer n
          double precision t(*)
          integer k
          double precision tm
          do k = 1, n - 1
            if (t(k) > t(k+1)) then
              tm = 0.5d0*(t(k) + t(k+1))
              t(k) = tm
              t(k+1) = tm
            end if
          end do
        end subroutine adj
        subroutine top(n, x, cost)
          integer n
          double precision x(n), cost
          call adj(n, x)
          cost = x(1)**2 + x(n)**2 + x(2)*x(3)
        end subroutine top
        """, schedule)


SEQUENCE_CASES = {
    # A whole matrix given to a vector dummy (F77 sequence association):
    # it was rejected as an elemental call.
    "read": """\
C adfort: routine=TOP dep=COST indep=X,Y
C adfort: init N=2 M=3 X=0.5:1.5 Y=0.5:1.5
      SUBROUTINE TOP(N, M, X, Y, COST)
      INTEGER N, M
      DOUBLE PRECISION X(N*M), Y(N,M), COST
      CALL MISFIT(N*M, X, Y, COST)
      END
      SUBROUTINE MISFIT(N, A, B, C)
      INTEGER N, I
      DOUBLE PRECISION A(N), B(N), C
      C = 0.0D0
      DO 10 I = 1, N
        C = C + (A(I) - B(I))**2*B(I)
   10 CONTINUE
      END
""",
    "written, explicit interface": """\
! adfort: routine=top dep=cost indep=y
! adfort: init n=2 m=3 y=0.5:1.5
module seq
  implicit none
contains
  subroutine square(k, b)
    integer, intent(in) :: k
    real(8), intent(inout) :: b(k)
    integer :: i
    do i = 1, k
      b(i) = b(i)**2 + 0.1d0*b(max(i - 1, 1))
    end do
  end subroutine square

  subroutine top(n, m, y, cost)
    integer, intent(in) :: n, m
    real(8), intent(in) :: y(n, m)
    real(8), intent(out) :: cost
    real(8) :: w(n, m)
    w = y
    call square(n*m, w)
    cost = sum(w*y)
  end subroutine top
end module seq
""",
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("case", sorted(SEQUENCE_CASES))
def test_whole_matrix_given_to_a_vector_dummy(case, schedule, tmp_path):
    text = SEQUENCE_CASES[case]
    harness.check_source(tmp_path, "k.f" if text.startswith("C") else "k.f90", text,
                         schedule)


WORKSPACE = """\
C adfort: routine=wrk dep={deps} indep=x
C adfort: init n=4 x=0.5:2.0 y=0.0 w=0.0
C adfort: shape w=n
      SUBROUTINE WRK(N, X, Y, W)
      INTEGER N, I
      DOUBLE PRECISION X(N), Y, W(*)
      Y = 0.0D0
      DO 10 I = 1, N
         W(I) = X(I)**2
         Y = Y + W(I)
   10 CONTINUE
      RETURN
      END
"""


def test_active_assumed_size_workspace_is_a_clear_error(tmp_path):
    """An F77 workspace W(*) carrying derivatives, neither dependent nor
    independent: its adjoint was declared a local w_adj(*) (did not
    compile)."""
    source = tmp_path / "k.f"
    source.write_text(WORKSPACE.replace("{deps}", "y"))
    done = subprocess.run([sys.executable, "-m", "adfort", "diff", str(source), "--routine",
                           "wrk", "--dep", "y", "--indep", "x", "-o", str(tmp_path / "o.f90")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "k.f:4:" in done.stderr and "'w' is an assumed-size dummy" in done.stderr, \
        done.stderr
    assert not (tmp_path / "o.f90").exists()


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_assumed_size_workspace_named_as_a_dependent(schedule, tmp_path):
    harness.check_source(tmp_path, "k.f", WORKSPACE.replace("{deps}", "y,w"), schedule)


MATRIX_DUMMY = """\
C adfort: routine=top dep=a indep=a
C adfort: init n=3 lda=4 a=0.5:1.5
C adfort: shape a=lda,n
      SUBROUTINE TOP(A, LDA, N)
      INTEGER LDA, N
      DOUBLE PRECISION A(LDA,*)
      CALL SQR(A, LDA, N)
      CALL SQR(A(1,2), LDA, N - 1)
      RETURN
      END
      SUBROUTINE SQR(A, LDA, N)
      INTEGER LDA, N, I, J
      DOUBLE PRECISION A(LDA,*)
      DO 20 J = 1, N
         DO 10 I = 1, N
            A(I,J) = A(I,J)**2 + 0.1D0*A(I,1)
   10    CONTINUE
   20 CONTINUE
      RETURN
      END
"""


def test_assumed_size_matrix_given_to_a_matrix_dummy_split(tmp_path):
    """A(LDA,*) given to a callee's A(LDA,*) that overwrites it (LINPACK's
    drivers): the callee measures the columns it assigns, counted in the
    caller's elements from its leading dimension (only vector dummies were
    measured: an error asking for explicit bounds)."""
    harness.check_source(tmp_path, "k.f", MATRIX_DUMMY, "split")


MIDDLE = """\
C adfort: routine=DRIVER dep=COST indep=X,A
C adfort: init N=7 A=0.5:1.5 X=-1:1 Y=-1:1
      SUBROUTINE DRIVER(N, A, X, Y, COST)
      INTEGER N
      DOUBLE PRECISION A, X(N), Y(N), COST
      INTEGER I
      CALL MIDDLE(N, A, X, Y)
      COST = 0.0D0
      DO 10 I = 1, N
        COST = COST + Y(I)**2
   10 CONTINUE
      RETURN
      END
      SUBROUTINE MIDDLE(N, A, X, Y)
      INTEGER N
      DOUBLE PRECISION A, X(*), Y(*)
      CALL DSCALX(N, A, {x}, 1)
      CALL DAXPYX(N, A, X, 1, Y, 1)
      RETURN
      END
      SUBROUTINE DAXPYX(N, DA, DX, INCX, DY, INCY)
      INTEGER N, INCX, INCY, I, IX, IY
      DOUBLE PRECISION DA, DX(*), DY(*)
      IX = 1
      IY = 1
      DO 10 I = 1, N
        DY(IY) = DY(IY) + DA*DX(IX)
        IX = IX + INCX
        IY = IY + INCY
   10 CONTINUE
      RETURN
      END
      SUBROUTINE DSCALX(N, DA, DX, INCX)
      INTEGER N, INCX, I, IX
      DOUBLE PRECISION DA, DX(*)
      IX = 1
      DO 10 I = 1, N
        DX(IX) = DA*DX(IX)*DX(IX)
        IX = IX + INCX
   10 CONTINUE
      RETURN
      END
"""


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("actual", ["X", "X(1)"])
def test_assumed_size_array_given_to_a_joint_callee_is_reversed_split(actual, schedule,
                                                                       tmp_path):
    """A routine passing its own X(*) to a BLAS-style callee that overwrites
    it: a joint link would copy X whole before the call (``SIZE(x)`` of an
    assumed-size array: did not compile); such links are reversed split,
    whose recording measures what the callee writes."""
    harness.check_source(tmp_path, "k.f", MIDDLE.replace("{x}", actual), schedule)


def test_assumed_size_array_on_a_named_joint_link_is_a_clear_error(tmp_path):
    source = tmp_path / "k.f"
    source.write_text(MIDDLE.replace("{x}", "X"))
    done = subprocess.run([sys.executable, "-m", "adfort", "diff", str(source), "--routine",
                           "DRIVER", "--dep", "COST", "--indep", "X,A", "--schedule", "joint",
                           "--link", "MIDDLE:DSCALX=joint", "-o", str(tmp_path / "o.f90")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "k.f:17:" in done.stderr and "'x' is an assumed-size array" in done.stderr, \
        done.stderr
    assert not (tmp_path / "o.f90").exists()


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_explicit_and_assumed_size_arrays_in_one_declaration(schedule, tmp_path):
    # CSR matrix-vector product as SPARSKIT's amux declares it: the module
    # could not be read at all.
    harness.check_source(tmp_path, "k.f90", """\
        ! adfort: routine=apply dep=y indep=a,x
        ! adfort: init n=4 a=0.5:1.5 x=0.5:1.5 y=0
        module csr
          implicit none
        contains
          subroutine apply(n, a, x, y)
            integer, intent(in) :: n
            real(8), intent(in) :: a(7), x(n)
            real(8), intent(out) :: y(n)
            integer :: ia(5), ja(7)
            ia = [1, 3, 5, 6, 8]
            ja = [1, 2, 2, 3, 1, 3, 4]
            call amux(n, x, y, a, ja, ia)
          end subroutine apply
          subroutine amux(n, x, y, a, ja, ia)
            integer, intent(in) :: n
            integer, intent(in) :: ia(n+1), ja(*)
            real(8), intent(in) :: a(*), x(n)
            real(8), intent(out) :: y(n)
            integer :: i, k
            do i = 1, n
              y(i) = 0
              do k = ia(i), ia(i+1) - 1
                y(i) = y(i) + a(k)*sin(x(ja(k)))
              end do
            end do
          end subroutine amux
        end module csr
        """, schedule)


# A passive assumed-size array given to a dummy the callee differentiates
# because another call gives it the active state (BLAS-style helpers called
# with weights and with the state).  The weights' zero adjoint is sized
# from the callee's explicit-shape dummy: SIZE(wt) of wt(*) is not Fortran,
# and the head's wt(*) was refused as an "active workspace".
WEIGHTED = """\
C adfort: routine=COST dep=J indep=X
C adfort: init N=6 X=0.5:1.5 WT=0.5:2.0 J=0
C adfort: shape WT=N
      SUBROUTINE COST(N, X, WT, J)
      INTEGER N, K
      DOUBLE PRECISION X(N), WT(*), J, S1, S2, S3
      CALL XDOT(N, X, WT, S1)
      CALL XDOT(N, X, X, S2)
      K = N/2
      CALL XDOT(K, X(K+1), WT(K+1), S3)
      J = S1*S3 + S2**2
      END
"""
XDOT = """\
      SUBROUTINE XDOT(N, X, W, S)
      INTEGER N, I
      DOUBLE PRECISION X({n}), W({n}), S
      S = 0.0D0
      DO 10 I = 1, N
        S = S + X(I)*W(I)
   10 CONTINUE
      END
"""


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_passive_assumed_size_array_given_to_an_active_dummy(schedule, tmp_path):
    harness.check_source(tmp_path, "k.f", WEIGHTED + XDOT.format(n="N"), schedule)


def test_passive_assumed_size_array_to_an_assumed_size_active_dummy_is_a_clear_error(
        tmp_path):
    source = tmp_path / "k.f"
    source.write_text(WEIGHTED + XDOT.format(n="*"))
    out = tmp_path / "k_ad.f90"
    done = subprocess.run([sys.executable, "-m", "adfort", "diff", str(source), "--routine",
                           "COST", "--dep", "J", "--indep", "X", "-o", str(out)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "k.f:7" in done.stderr and "cannot size a zero adjoint" in done.stderr, done.stderr
    assert not out.exists()


# A whole assumed-size matrix g(n, *) given to a callee that overwrites it
# through an explicit-shape dummy g(n, m): the caller saves the columns the
# dummy covers (SIZE(g) of g(n, *) did not compile).
MATRIX = """\
! adfort: routine=top dep=g indep=x
! adfort: init n=3 m=4 x=0.5:1.5 g=0.5:1.5
! adfort: shape g=n,m
subroutine top(n, m, x, g)
  integer :: n, m
  real(8) :: x(n,m), g(n,*)
  g(1,1) = g(1,1)**2 + g(2,3)
  call setg(n, m, x, g)
  g(2,2) = g(2,2)*g(1,1)
end subroutine
subroutine setg(n, m, x, g)
  integer :: n, m
  real(8), intent(in) :: x(n,m)
  real(8), intent({intent}) :: g(n,{m})
  g(:, 1:m) = 3*x{times}
end subroutine
"""


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("extent", ["m", "*"])
@pytest.mark.parametrize("intent", ["out", "inout"])
def test_whole_assumed_size_matrix_given_to_a_writing_callee(intent, extent, schedule,
                                                             tmp_path):
    times = "*g(:, 1:m)" if intent == "inout" else ""
    text = MATRIX.format(m=extent, intent=intent, times=times)
    if (intent, extent, schedule) == ("out", "*", "joint"):
        # Joint measures what a callee's vector dummy reaches, not a
        # matrix's: a clear error.
        source = tmp_path / "k.f90"
        source.write_text(text)
        done = subprocess.run([sys.executable, "-m", "adfort", "diff", str(source),
                               "--routine", "top", "--dep", "g", "--indep", "x", "--schedule",
                               "joint", "-o", str(tmp_path / "o.f90")],
                              capture_output=True, text=True, cwd=tmp_path)
        assert done.returncode == 1 and "k.f90:8:" in done.stderr and \
            "explicit bounds" in done.stderr, done.stderr
        return
    harness.check_source(tmp_path, "k.f90", text, schedule)


# An element starting an array a callee fills with values that carry no
# derivative (a BLAS-style DSET, a column's top levels reset): the adjoints
# of the elements the dummy spans are cleared at the call's reversal, no
# more (adfort refused the call: it could not count them).
RESET_TOP = """\
C adfort: routine=COLUMN dep=COST indep=T
C adfort: init NZ=9 T=250:300
      SUBROUTINE DSET(N, ALPHA, X)
      INTEGER, INTENT(IN) :: N
      DOUBLE PRECISION, INTENT(IN) :: ALPHA
      DOUBLE PRECISION, INTENT(OUT) :: X(N)
      INTEGER I
      DO 10 I = 1, N
         X(I) = ALPHA
   10 CONTINUE
      END
      SUBROUTINE RESET(M, X)
      INTEGER, INTENT(IN) :: M
      DOUBLE PRECISION, INTENT(OUT) :: X(M+1)
      X(1) = 200.0D0
      X(M+1) = 210.0D0
      END
      SUBROUTINE COLUMN(NZ, T, COST)
      INTEGER NZ, K, KTOP
      DOUBLE PRECISION T(NZ), COST
      DO 20 K = 2, NZ
         T(K) = T(K) + 0.1D0*T(K-1)**2/300.0D0
   20 CONTINUE
      KTOP = NZ - 2
      CALL DSET(NZ - KTOP + 1, 220.0D0, T(KTOP))
      CALL RESET(1, T(2))
      COST = 0.0D0
      DO 30 K = 1, NZ
         COST = COST + T(K)**2*K
   30 CONTINUE
      END
"""


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_element_starting_an_array_filled_with_passive_values(schedule, tmp_path):
    harness.check_source(tmp_path, "reset_top.f", RESET_TOP, schedule)
