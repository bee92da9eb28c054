"""Copies of the user's routines the generated code holds (a private
routine of the module, a routine made from an internal procedure, one
specialised for the function passed to it; each run as it is under the
joint schedule): they keep OPTIONAL, declare ``REAL*8`` as
``real(kind=8)``, and declare no index of a WHERE PSyclone read into a
loop that adfort lowered itself (an unused variable, an error under the
strict compile of the checks)."""

import pytest

import harness

CASES = {
    "private routine with an optional argument": """\
        ! adfort: routine=run dep=cost indep=x
        ! adfort: init n=4 x=0.5:1.5
        ! adfort: shape x=n
        module m
          implicit none
          private
          public :: run
        contains
          subroutine scale(q, rate)
            real(8), intent(inout) :: q(:)
            real(8), intent(in), optional :: rate
            real(8) :: k
            k = 0.5d0
            if (present(rate)) k = rate
            q = q * exp(-k*q)
          end subroutine scale

          subroutine run(n, x, cost)
            integer, intent(in) :: n
            real(8), intent(in) :: x(:)
            real(8), intent(out) :: cost
            real(8) :: q(n)
            integer :: it
            q = x
            do it = 1, 2
              call scale(q, rate=0.3d0)
            end do
            cost = sum(q**2)
          end subroutine run
        end module m
        """,
    "internal procedure with a WHERE": """\
        ! adfort: routine=run dep=cost indep=x
        ! adfort: init n=5 x=-1.0:1.5
        ! adfort: shape x=n
        module m
          implicit none
        contains
          subroutine step(c)
            real(8), intent(inout) :: c(:)
            c = c*c - 0.3d0
            call clip()
          contains
            subroutine clip()
              where (c < 0.0d0) c = 0.0d0
            end subroutine clip
          end subroutine step

          subroutine run(n, x, cost)
            integer, intent(in) :: n
            real(8), intent(in) :: x(n)
            real(8), intent(out) :: cost
            real(8) :: c(n)
            c = x
            call step(c)
            cost = sum(c**2)
          end subroutine run
        end module m
        """,
    # An optional dummy named like an attribute (TARGET) was taken for a
    # target.
    "optional dummy named target": """\
        ! adfort: routine=top dep=cost indep=x
        ! adfort: init x=0.5:1.5
        module m
          implicit none
        contains
          subroutine relax(x, target)
            real(8), intent(inout) :: x
            real(8), intent(in), optional :: target
            if (present(target)) x = x + 0.1d0*(target - x)**2
          end subroutine relax
        end module m

        subroutine top(x, cost)
          use m
          implicit none
          real(8), intent(in) :: x
          real(8), intent(out) :: cost
          real(8) :: y
          y = x
          call relax(y, 2.0d0)
          call relax(y, x)
          cost = y**2
        end subroutine top
        """,
    # A function of the kinds module inlined into a routine importing the
    # kind: the generated module declared a copy of rk beside the use of
    # the original module, which brings rk too.
    "kind of an inlined function": """\
        ! adfort: routine=run dep=cost indep=x
        ! adfort: init x=0.5:1.5
        module kinds
          use, intrinsic :: iso_fortran_env, only: real64
          implicit none
          integer, parameter :: rk = real64
        contains
          function get_c() result(h)
            real(rk) :: h
            h = 3.0_rk
          end function get_c
        end module kinds
        module top
          use kinds, only: rk, get_c
          implicit none
        contains
          subroutine run(x, cost)
            real(rk), intent(in) :: x
            real(rk), intent(out) :: cost
            cost = get_c() * x**2
          end subroutine run
        end module top
        """,
    # REAL*8 declarations, a function passed as an argument (the copy
    # specialised for it) and a function declared REAL*8, EXTERNAL: the
    # output declares them real(kind=8) (-std=f2008 refuses REAL*8).
    "REAL*8 and a function passed as an argument": """\
C adfort: routine=SATADJ dep=COST indep=TIN
C adfort: init N=3 TIN=270:290 PRS=70000:100000 COST=0
      SUBROUTINE SATADJ(N, TIN, PRS, COST)
      INTEGER N, I, K
      REAL*8 TIN(N), PRS(N), COST, T, F, DF
      REAL*8 QSATF
      EXTERNAL QSATF
      COST = 0.0D0
      DO 20 I = 1, N
         T = TIN(I)
         DO 10 K = 1, 3
            CALL NEWTST(QSATF, T, PRS(I), TIN(I), F, DF)
            T = T - F/DF
   10    CONTINUE
         COST = COST + (T - 273.15D0)**2
   20 CONTINUE
      END
      SUBROUTINE NEWTST(FQS, T, P, TI, F, DF)
      REAL*8 FQS, T, P, TI, F, DF, QS
      EXTERNAL FQS
      QS = FQS(T, P)
      F = T + 2.5D3*QS - TI - 1.0D0
      DF = 1.D0 + 2.5D3*QS*17.67D0*243.5D0/(T - 29.65D0)**2
      END
      REAL*8 FUNCTION QSATF(T, P)
      REAL*8 T, P
      QSATF = 0.622D0*611.2D0*DEXP(17.67D0*(T - 273.15D0)/(T - 29.65D0))/P
      END
""",
    # The copy of a library routine taking the procedure kept adfort's
    # placeholder as its assumed-size bound (did not compile).
    "assumed-size workspace of a routine given a procedure": """\
C adfort: routine=top dep=y indep=p
C adfort: init p=0.5:1.5 y=0.0
      SUBROUTINE TOP(P, Y)
      DOUBLE PRECISION P, Y, W(3)
      EXTERNAL RHS
      Y = P
      CALL LIB(RHS, W, Y)
      RETURN
      END
      SUBROUTINE RHS(X, F)
      DOUBLE PRECISION X, F
      F = X**3
      RETURN
      END
      SUBROUTINE LIB(G, W, Y)
      DOUBLE PRECISION W(*), Y
      EXTERNAL G
      CALL LOW(G, W(2), Y)
      RETURN
      END
      SUBROUTINE LOW(G, V, Y)
      DOUBLE PRECISION V, Y
      EXTERNAL G
      CALL G(Y, V)
      Y = V*Y
      RETURN
      END
""",
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_copies_compile_strictly_and_differentiate(case, schedule, tmp_path):
    name = "k.f" if CASES[case].startswith("C") else "k.f90"
    harness.check_source(tmp_path, name, CASES[case], schedule)


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_loop_with_an_integer_8_index_taping_values(schedule, tmp_path):
    # The tape room counted the trips in integer(8): the reserve call and
    # the room test did not compile.
    harness.check_source(tmp_path, "k.f90", """\
        ! adfort: routine=f dep=c indep=v
        ! adfort: init n=4 v=0.3:1.2
        ! adfort: shape v=n
        module m3
          implicit none
        contains
          subroutine f(n, v, c)
            integer, intent(in) :: n
            real(8), intent(in) :: v(:)
            real(8), intent(out) :: c
            real(8) :: q
            integer(8) :: i
            c = 0.0d0
            do i = 1_8, int(n, 8)
              q = sin(v(i))
              c = c + q*q
            end do
          end subroutine f
        end module m3
        """, schedule)


def test_names_the_generated_module_imports_are_not_re_exported(tmp_path):
    # A driver with its own nx beside `use model_ad`: model_ad imported the
    # grid's nx for its routines and exported it too (the driver did not
    # compile).
    import subprocess
    import sys
    (tmp_path / "grid.f90").write_text(
        "module grid\n  implicit none\n  integer, parameter :: nx = 4\nend module grid\n")
    (tmp_path / "model.f90").write_text(
        "module model\n  use grid, only: nx\n  implicit none\n  private\n  public :: run\n"
        "contains\n  subroutine run(x, cost)\n    real(8), intent(in) :: x(nx)\n"
        "    real(8), intent(out) :: cost\n    cost = sum(x**2)\n"
        "  end subroutine run\nend module model\n")
    (tmp_path / "driver.f90").write_text(
        "program driver\n  use model_ad\n  implicit none\n  integer :: nx\n"
        "  real(8) :: x(4), xb(4), c, cb\n  nx = 4\n  x = 1\n  xb = 0\n  cb = 1\n"
        "  call run_rev(x, xb, c, cb)\n  print *, xb(1:nx)\nend program driver\n")
    done = subprocess.run([sys.executable, "-m", "adfort", "diff", "model.f90", "grid.f90",
                           "--dep", "cost", "--indep", "x", "-o", "model_ad.f90"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    built = subprocess.run([harness.gfortran(), "grid.f90", "model.f90", "model_ad.f90",
                            "driver.f90", "-o", "driver"], cwd=tmp_path,
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    ran = subprocess.run([str(tmp_path / "driver")], capture_output=True, text=True)
    assert [float(v) for v in ran.stdout.split()] == [2.0] * 4, ran.stdout
