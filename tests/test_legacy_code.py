"""Idioms of real legacy code met when running adfort on public libraries
and AD regression suites unedited: each case is checked against finite
differences under both schedules (a small source with ``adfort:``
metadata, as the fixtures), or is a clear error where the source breaks
the standard in a way that would make the adjoint silently wrong."""

import shutil
import subprocess
import sys
import textwrap

import pytest

import harness

needs_gfortran = pytest.mark.skipif(shutil.which("gfortran") is None, reason="no gfortran")
SCHEDULES = ["split", "joint"]


def _adfort(args, cwd):
    """Run ``adfort diff`` with `args` in `cwd`."""
    return subprocess.run([sys.executable, "-m", "adfort", "diff"] + [str(a) for a in args],
                          cwd=cwd, capture_output=True, text=True)


def _refused(out, tmp_path, *fragments):
    """A clean user error: exit 1, the fragments, no traceback, no file."""
    assert out.returncode == 1, out.stderr
    for fragment in fragments:
        assert fragment in out.stderr, out.stderr
    assert "Traceback" not in out.stderr and not list(tmp_path.glob("*_ad.f90"))




CASES = {
    # F77 one-element dummies used only as such (OpenAD's x(1), y(1)): they
    # keep their one element, so an overwritten input and an intent(out)
    # dependent are copied and cleared (this did not compile).
    "one_element.f90": """\
        ! adfort: routine=head dep=y indep=x
        subroutine head(x, y)
          double precision :: x(1)
          double precision, intent(out) :: y(1:1)
          x(1) = x(1)*sin(x(1))
          if (x(1) > 0) then
            y(1) = x(1)**2
          else
            y(1) = -x(1)
          end if
        end subroutine head
        """,
    # A call through a wildcard USE whose module declares the name private:
    # the external routine of that name is called (it differentiated the
    # module's).
    "private_shadow.f90": """\
        ! adfort: routine=head dep=y indep=x
        module d
          private :: reed
        contains
          subroutine reed(x)
            double precision :: x
            x = x*2.0d0
          end subroutine reed
        end module d
        subroutine reed(x)
          double precision :: x
          x = x*sin(x)
        end subroutine reed
        subroutine head(x, y)
          use d
          double precision :: x, y
          call reed(x)
          y = x
        end subroutine head
        """,
    # A module integer used as a subscript of an actual argument, which the
    # callee changes: kept from the call (its type was unknown).
    "module_subscript.f90": """\
        ! adfort: routine=head dep=y indep=x
        module globals
          integer :: i
        end module globals
        subroutine bump(p)
          use globals
          double precision, intent(inout) :: p
          p = p*exp(p)
          i = i + 1
        end subroutine bump
        subroutine head(x, y)
          use globals
          double precision :: x, y
          double precision :: a(2)
          i = 1
          a(1) = x
          a(2) = 2*x
          call bump(a(i))
          y = a(1)*a(i)
        end subroutine head
        """,
    # A generic interface called without its optional argument (CESM's
    # shr_assert), an external function declared by an INTERFACE block in
    # a module (GSW's toolbox module), a derived-type module variable read
    # through USE ONLY (CTSM's col%itype).
    "generic_interface_external.f90": """\
        ! adfort: routine=sq dep=y indep=x
        ! adfort: shape x=3 y=3
        module chk
          interface check_all
            module procedure check_all_1d
          end interface
        contains
          subroutine check_all_1d(var, line)
            logical, intent(in) :: var(:)
            integer, intent(in), optional :: line
            if (.not. all(var)) stop 'check'
            if (present(line)) continue
          end subroutine check_all_1d
        end module chk
        module iface
          interface
            elemental function cube(x)
              real(8), intent(in) :: x
              real(8) :: cube
            end function cube
          end interface
        end module iface
        module ctype
          implicit none
          type column_type
            integer :: n
          end type column_type
          type(column_type) :: col
        end module ctype
        elemental function cube(x)
          real(8), intent(in) :: x
          real(8) :: cube
          cube = x**3
        end function cube
        module m
        contains
          subroutine sq(x, y)
            use chk
            use iface, only: cube
            use ctype, only: col
            real(8), intent(in) :: x(:)
            real(8), intent(out) :: y(:)
            call check_all(x > 0d0)
            if (col%n == 0) then
              y = cube(x) + x
            else
              y = x
            end if
          end subroutine sq
        end module m
        """,
    # A generic function given a user function's value (OpenAD's funcInMod):
    # the argument has the result's type, so one specific procedure fits.
    "nested_generic.f90": """\
        ! adfort: routine=head dep=y indep=x
        module m
          interface foo
            module procedure foo_r, foo_i
          end interface
        contains
          double precision function foo_r(x)
            double precision :: x
            foo_r = x*sin(x)
          end function
          integer function foo_i(k)
            integer :: k
            foo_i = k + 1
          end function
        end module m
        subroutine head(x, y)
          use m
          double precision :: x, y
          y = foo(foo(x)) + foo(foo_r(x))*foo(2)
        end subroutine head
        """,
    # F77's A(LDA,1) "any number of columns", overwritten in place through a
    # BLAS-style callee given the element starting a column (LINPACK).
    "any_size_columns.f": (
        "c adfort: routine=elim dep=a indep=a\n"
        "c adfort: init n=5 lda=6 a=0.5:1.5\n"
        "c adfort: shape a=lda,n\n"
        "c adfort: fflags=-fcheck=no-bounds\n"
        "      SUBROUTINE ELIM(A, LDA, N)\n      INTEGER LDA, N, K\n"
        "      DOUBLE PRECISION A(LDA,1), T\n      DO 10 K = 1, N - 1\n"
        "         T = -1.0D0/A(K,K)\n         CALL DSCAL2(N-K, T, A(K+1,K), 1)\n"
        "   10 CONTINUE\n      END\n      SUBROUTINE DSCAL2(N, DA, DX, INCX)\n"
        "      INTEGER N, INCX, I\n      DOUBLE PRECISION DA, DX(1)\n"
        "      DO 20 I = 1, N\n         DX(I) = DA*DX(I)\n   20 CONTINUE\n      END\n"),
    # A library FUNCTION taking the integrand (free form, the EXTERNAL
    # attribute, no IMPLICIT NONE): its copy's result variable takes the
    # copy's name (left as it was, the copy returned nothing: a zero
    # gradient), and the caller declares the copy as it declared the library.
    "function_of_a_routine.f90": """\
        ! adfort: routine=model dep=y indep=k
        ! adfort: init k=0.5:1.5
        real(8) function simpson(f, a, b, n)
          real(8), external :: f
          real(8), intent(in) :: a, b
          integer, intent(in) :: n
          integer :: i
          real(8) :: h
          h = (b - a) / n
          simpson = f(a) + f(b)
          do i = 1, n - 1
            if (mod(i, 2) == 1) then
              simpson = simpson + 4.0d0 * f(a + i * h)
            else
              simpson = simpson + 2.0d0 * f(a + i * h)
            end if
          end do
          simpson = simpson * h / 3.0d0
        end function simpson
        real(8) function rate(z)
          implicit none
          real(8), intent(in) :: z
          real(8) :: kk
          common /kc/ kk
          rate = exp(-kk * z) * z
        end function rate
        subroutine model(k, y)
          implicit none
          real(8), external :: simpson
          real(8), intent(in) :: k
          real(8), intent(out) :: y
          real(8), external :: rate
          real(8) :: kk
          common /kc/ kk
          kk = k
          y = simpson(rate, 0.0d0, 2.0d0, 8) + 0.5d0 * simpson(rate, 1.0d0, 3.0d0, 4)
        end subroutine model
        """,
    # An F77 one-element dummy given to a callee whose dummy has explicit
    # bounds (OpenAD's Loop_simple_10): the callee assigns at most those
    # elements, which is how far r_rev keeps the caller's array.
    "one_element_to_callee.f": (
        "c adfort: routine=head dep=y indep=x\n"
        "      subroutine foo(x, y, a, j)\n"
        "      double precision, dimension(1), intent(in) :: x\n"
        "      double precision, dimension(1), intent(out) :: y\n"
        "      integer a(2,2), i, j\n      y(1) = x(1)\n      do i = 1, 2\n"
        "        if (a(i,j) .ne. 0) then\n          y(1) = y(1)*x(1)*a(i,j)\n"
        "        else\n          y(1) = 0.0\n        end if\n      end do\n"
        "      end subroutine\n"
        "      subroutine head(x, y)\n"
        "      double precision, dimension(1), intent(in) :: x\n"
        "      double precision, dimension(1), intent(out) :: y\n"
        "      integer a(2,2), i, j\n      do i = 1, 2\n        do j = 1, 2\n"
        "          a(i,j) = i + j\n        end do\n      end do\n"
        "      call foo(x, y, a, 2)\n      end subroutine\n"),
    # An element of an F77 one-element dummy given to a scalar dummy the
    # callee changes, and a module variable changed through an argument
    # (OpenAD's sideEffect_1): the element alone is what the call assigns.
    "element_to_scalar_dummy.f": (
        "c adfort: routine=head dep=y indep=x\n"
        "      module globals\n        double precision scale\n      end module\n"
        "      subroutine foo(x, y)\n        double precision, dimension(1) :: x\n"
        "        double precision y\n        y = x(1)*sin(x(1))\n      end subroutine\n"
        "      subroutine bar(x)\n        use globals\n        double precision :: x\n"
        "        x = x*scale\n      end subroutine\n"
        "      subroutine head(x, y)\n        use globals\n"
        "        double precision, dimension(1) :: x\n"
        "        double precision, dimension(1) :: y\n        scale = 2.0\n"
        "        call bar(x(1))\n        call foo(x, scale)\n        y(1) = scale*x(1)\n"
        "      end subroutine\n"),
    # A function changing its argument, given an element of an assumed-size
    # array (its value assigned in an expression).
    "function_changing_an_element.f": (
        "C adfort: routine=head dep=y indep=x\nC adfort: init n=4\nC adfort: shape x=n\n"
        "      SUBROUTINE HEAD(N, X, Y)\n      INTEGER N\n"
        "      DOUBLE PRECISION X(*), Y, SQ\n      Y = SQ(X(2)) + X(1)\n"
        "      X(1) = X(1)*Y\n      Y = Y + X(1)\n      END\n"
        "      DOUBLE PRECISION FUNCTION SQ(A)\n      DOUBLE PRECISION A\n"
        "      SQ = A*A\n      A = A + 1.0D0\n      END\n"),
    # COMMON members declared REAL*8 (MITgcm's EOS.h): the layout module
    # declares them real(kind=8), as -std=f2008 wants.
    "common_real_star_8.f": (
        "c adfort: routine=scale dep=r indep=t\n"
        "      SUBROUTINE SCALE(T, R)\n      REAL*8 T(3), R(3)\n      REAL*8 C\n"
        "      COMMON /COEF/ C\n      INTEGER I\n      DO I = 1, 3\n"
        "        R(I) = C*T(I)**2\n      ENDDO\n      END\n"
        "      BLOCK DATA COEFIN\n      REAL*8 C\n      COMMON /COEF/ C\n"
        "      DATA C /1.5D0/\n      END\n"),
    # DATA initialising COMMON members in a routine, not in BLOCK DATA (a
    # gfortran extension old radiation codes use): the members stay in the
    # block (SAVE next to COMMON did not compile) and only the original
    # initialises the block (a copy of the DATA defined it twice at link).
    "common_member_data.f": (
        "c adfort: routine=lwcool dep=tnd indep=t,emis\n"
        "c adfort: init t=220:290 emis=0.6:0.9\n"
        "      SUBROUTINE LWCOOL(T, EMIS, TND)\n"
        "      DOUBLE PRECISION T(4), EMIS, TND(4)\n"
        "      DOUBLE PRECISION SIGMA, CPDRY, FLX\n"
        "      COMMON /RADCON/ SIGMA, CPDRY\n"
        "      DATA SIGMA, CPDRY /5.67D-8, 1004.D0/\n"
        "      INTEGER K\n"
        "      DO 10 K = 1, 4\n"
        "         CALL EMIT(T(K), EMIS, FLX)\n"
        "         TND(K) = -FLX/CPDRY\n"
        "   10 CONTINUE\n"
        "      END\n"
        "      SUBROUTINE EMIT(T, E, F)\n"
        "      DOUBLE PRECISION T, E, F, SIGMA, CPDRY\n"
        "      COMMON /RADCON/ SIGMA, CPDRY\n"
        "      F = E*SIGMA*T**4\n"
        "      END\n"),
    # A column routine resetting its column of a COMMON state array that
    # the caller's adjoint reads before the call: the caller saves that
    # column (ts(:nz, j:j)), not the whole array, under both schedules.
    "common_column_reset.f": (
        "c adfort: routine=run dep=cost indep=x,c\n"
        "c adfort: init nz=3 ncol=4 nt=2 x=0.5:1.5 c=0.5:1.0\n"
        "      SUBROUTINE RUN(NZ, NCOL, NT, X, C, COST)\n"
        "      INTEGER NZ, NCOL, NT\n"
        "      DOUBLE PRECISION X(NZ, NCOL), C(NZ, NCOL), COST\n"
        "      DOUBLE PRECISION TS(8, 10)\n      COMMON /ST/ TS\n"
        "      INTEGER IT, J, K\n"
        "      DO 10 J = 1, NCOL\n        DO 10 K = 1, NZ\n"
        "          TS(K, J) = X(K, J)\n   10 CONTINUE\n"
        "      COST = 0.0D0\n"
        "      DO 20 IT = 1, NT\n        DO 20 J = 1, NCOL\n"
        "          COST = COST + TS(1, J)**2*TS(NZ, J)\n"
        "          CALL RESET(NZ, J, C(1, J))\n   20 CONTINUE\n"
        "      DO 30 J = 1, NCOL\n        DO 30 K = 1, NZ\n"
        "          COST = COST + SIN(TS(K, J))\n   30 CONTINUE\n"
        "      END\n"
        "      SUBROUTINE RESET(NZ, J, C)\n      INTEGER NZ, J, K\n"
        "      DOUBLE PRECISION C(NZ), TS(8, 10)\n      COMMON /ST/ TS\n"
        "      DO 40 K = 1, NZ\n        TS(K, J) = C(K)**2 + 0.5D0*C(1)\n"
        "   40 CONTINUE\n      END\n"),
    # QUADPACK's 'abserr = dmax1' with the arguments on the continuation
    # line, and Numerical Recipes' PAUSE on an error path.
    "continued_specific.f": (
        "c adfort: routine=s dep=e indep=r,e\n"
        "c adfort: init r=0.5:1.5 e=0.5:1.5\n"
        "      subroutine s(r, e)\n"
        "      double precision r, e\n"
        "      if (r .eq. 0.d0) pause 'zero'\n"
        "      e = dmax1\n"
        "     *  ((r*0.5d+02)*e, dsqrt\n"
        "     *  (r))\n"
        "      end\n"),
    # A labelled DO ended by a labelled END DO (Fortran 90), in a routine
    # without jumps and in one whose GO TO the front end restructures.
    "labelled_end_do.f": (
        "c adfort: routine=lbl dep=s indep=x\n"
        "c adfort: init n=4 x=0.5:1.5\n"
        "      SUBROUTINE LBL(N, X, S)\n"
        "      INTEGER N, K, J\n"
        "      DOUBLE PRECISION X(N), S\n"
        "      S = 0.D0\n"
        "      DO 20 K = 1, N\n"
        "        DO 10 J = 1, K\n"
        "          S = S + X(K)*X(J)\n"
        "   10   END DO\n"
        "        S = S + X(K)**2\n"
        "   20 END DO\n"
        "      END\n"),
    # F2008 intrinsics fparser reads as structure constructors, in code
    # typed implicitly (they were typed as variables, renamed, and then
    # rejected as calls of an unknown routine).
    "implicit_hypot_norm2.f90": """\
        ! adfort: routine=r dep=y indep=x
        ! adfort: init n=3 x=-2:2
        subroutine r(n, x, y)
          integer, intent(in) :: n
          real(8), intent(in) :: x(n, 2)
          real(8), intent(out) :: y
          y = hypot(x(1, 1), 0.5d0) + sum(norm2(x, dim=2)) + norm2(x(:, 1), 1)
        end subroutine r
        """,
    # Fortran 2008's EXIT out of a named IF construct (from a nested IF,
    # in a loop, with an ELSE part): to its END IF.
    "exit_named_if.f90": """\
        ! adfort: routine=adjust dep=y indep=x
        ! adfort: init n=6 x=0.2:1.8
        subroutine adjust(n, x, y)
          integer, intent(in) :: n
          real(8), intent(in) :: x(n)
          real(8), intent(out) :: y
          integer :: k
          y = 0.0d0
          do k = 1, n
            sat: if (x(k) > 0.5d0) then
              y = y + x(k)**2
              if (x(k) > 1.2d0) then
                y = y - 0.1d0*x(k)
                exit sat
              end if
              y = y + sin(x(k))
            else sat
              y = y + x(k)
            end if sat
          end do
        end subroutine adjust
        """,
    "labelled_end_do_goto.f90": """\
        ! adfort: routine=lbl dep=s indep=x
        ! adfort: init n=5 x=0.5:1.5
        subroutine lbl(n, x, s)
          integer, intent(in) :: n
          real(8), intent(in) :: x(n)
          real(8), intent(out) :: s
          integer :: k
          s = 0.d0
          do 20 k = 1, n
            if (x(k) > 1.0d0) go to 20
            s = s + x(k)**2
        20 end do
          s = s + sum(x)
        end subroutine lbl
        """,
}


@needs_gfortran
@pytest.mark.parametrize("schedule", SCHEDULES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_legacy_idiom_matches_finite_differences(tmp_path, name, schedule):
    harness.check_source(tmp_path, name, CASES[name], schedule)


def test_continued_specific_and_pause_are_read(tmp_path):
    src = tmp_path / "c.f"
    src.write_text(CASES["continued_specific.f"])
    out = _adfort([src, "--dep", "e", "--indep", "r", "-o", "-"], tmp_path)
    assert out.returncode == 0, out.stderr
    assert "MAX(" in out.stdout and "SQRT(r)" in out.stdout
    # PAUSE writes its message and waits for a line, in standard Fortran.
    assert "WRITE(*, *) 'PAUSE', 'zero'" in out.stdout and "READ(*, *)" in out.stdout


def test_data_for_common_members_and_locals_together_is_refused(tmp_path):
    """Only the original may initialise a COMMON block (a generated copy
    would define it again at link), and a DATA statement mixing members and
    locals cannot be kept for the locals alone: the statement is named."""
    src = tmp_path / "d.f"
    src.write_text("      SUBROUTINE TOP(X, Y)\n      DOUBLE PRECISION X, Y, CK, A\n"
                   "      COMMON /PHYS/ CK\n      DATA CK, A /0.5D0, 2.0D0/\n"
                   "      Y = CK*X*X*A\n      END\n")
    out = _adfort([src, "--dep", "y", "--indep", "x"], tmp_path)
    _refused(out, tmp_path, "d.f:4:", "COMMON members (ck) together with other variables (a)",
             "their own DATA statement")


def test_common_member_with_other_bounds_is_refused(tmp_path):
    """ts(4, 6) in one routine and ts(6, 4) in another name other elements
    by the same subscripts (sequence association): the adjoint, one module
    array, gave a wrong gradient; now the declaration is named."""
    src = tmp_path / "e.f"
    src.write_text("      SUBROUTINE RUN(X, COST)\n      DOUBLE PRECISION X(4, 6), COST, TS(4, 6)\n"
                   "      COMMON /ST/ TS\n      TS = X\n      CALL COL(2)\n"
                   "      COST = SUM(TS**2)\n      END\n"
                   "      SUBROUTINE COL(J)\n      INTEGER J, K\n      DOUBLE PRECISION TS(6, 4)\n"
                   "      COMMON /ST/ TS\n      DO 40 K = 1, 3\n"
                   "        TS(K, J) = SIN(TS(K, J))\n   40 CONTINUE\n      END\n")
    out = _adfort([src, "--routine", "run", "--dep", "cost", "--indep", "x"], tmp_path)
    _refused(out, tmp_path, "e.f:8:", "COMMON /st/", "member 'ts' is declared otherwise",
             "same members (types, kinds and bounds)")


def test_callee_changing_an_intent_in_argument_is_refused(tmp_path):
    """adfort trusts intent(in) (never saves such an argument): a callee
    that changes one breaks the standard, and the adjoint would be wrong."""
    src = tmp_path / "b.f"
    src.write_text("      subroutine foo(a)\n      double precision a\n      a = 2*a\n"
                   "      end\n      subroutine head(x, y)\n"
                   "      double precision, intent(in) :: x(2)\n"
                   "      double precision, intent(out) :: y(2)\n"
                   "      call foo(x(1))\n      y = x\n      end\n")
    out = _adfort([src, "--routine", "head", "--dep", "y", "--indep", "x"], tmp_path)
    _refused(out, tmp_path, "b.f:8:", "'x(1)' is intent(in) in 'head'",
             "'foo' may change its dummy 'a'")


def test_assumed_size_overwritten_by_a_passive_call_is_refused_at_the_call(tmp_path):
    """What a --passive routine writes into an assumed-size array cannot be
    measured: r_rev could not keep it, so the call is named."""
    src = tmp_path / "p.f"
    src.write_text("      SUBROUTINE HEAD(N, X, Y)\n      INTEGER N, I\n"
                   "      DOUBLE PRECISION X(*), Y\n      Y = 0.0D0\n"
                   "      DO 10 I = 1, N\n         Y = Y + X(I)**2\n   10 CONTINUE\n"
                   "      CALL FILL(N, X)\n      X(1) = X(1) + Y\n      END\n"
                   "C$ADFORT PASSIVE\n      SUBROUTINE FILL(N, X)\n      INTEGER N, I\n"
                   "      DOUBLE PRECISION X(*)\n      DO 10 I = 1, N\n"
                   "         X(I) = 1.0D0\n   10 CONTINUE\n      END\n")
    out = _adfort([src, "--routine", "head", "--dep", "x", "--indep", "x"], tmp_path)
    _refused(out, tmp_path, "p.f:8:", "'x' is an assumed-size array", "explicit bounds")


def test_routine_given_its_routine_argument_is_refused(tmp_path):
    """Differentiating a library routine whose integrand is still a dummy:
    adfort cannot know which routine runs; the message says what works."""
    src = tmp_path / "q.f"
    src.write_text("      SUBROUTINE QK(F, A, B, R)\n      DOUBLE PRECISION F, A, B, R\n"
                   "      EXTERNAL F\n      R = 0.5D0*(B - A)*(F(A) + F(B))\n      END\n")
    out = _adfort([src, "--dep", "r", "--indep", "a,b"], tmp_path)
    _refused(out, tmp_path, "q.f:", "takes a routine passed as an argument",
             "differentiate a routine that calls it with your routine")


def test_copies_for_routines_passed_are_named_and_carried(tmp_path):
    """The copy of the library routine for the routine passed, and the
    copy it makes in turn for the routine it passes on, are called by the
    adjoint (and by nothing in the user's sources)."""
    fixture = harness.FIXTURE_DIR / "column_quadrature_external_args.f"
    out = _adfort([fixture, "--dep", "total", "--indep", "p", "--schedule", "joint",
                   "--no-split-tapeless", "-o", "-"], tmp_path)
    assert out.returncode == 0, out.stderr
    text = out.stdout.lower()
    for name in ("qgaus5_profil_rev", "resid2_twoval_rev", "eval2_twoval_rev"):
        assert f"subroutine {name}(" in text, name
    assert "call eval2_twoval_rev(" in text and "call eval2(" not in text


def test_module_procedure_given_a_routine_from_outside_is_refused(tmp_path):
    """The copy of a module procedure would be seen only in its module: a
    caller elsewhere passing it a routine gets an error, not a traceback."""
    src = tmp_path / "m.f90"
    src.write_text(textwrap.dedent("""\
        module quad_lib
          implicit none
        contains
          real(8) function simpson(f, a, b)
            real(8), external :: f
            real(8), intent(in) :: a, b
            simpson = (b - a) * (f(a) + 4 * f(0.5d0 * (a + b)) + f(b)) / 6
          end function simpson
        end module quad_lib
        real(8) function rate(z)
          real(8), intent(in) :: z
          rate = exp(-z) * z
        end function rate
        subroutine model(k, y)
          use quad_lib, only: simpson
          real(8), intent(in) :: k
          real(8), intent(out) :: y
          real(8), external :: rate
          y = k * simpson(rate, 0.0d0, 2.0d0)
        end subroutine model
        """))
    out = _adfort([src, "--routine", "model", "--dep", "y", "--indep", "k"], tmp_path)
    _refused(out, tmp_path, "m.f90:4:", "takes the routine 'f' passed as an argument")


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_long_run_of_comment_lines_in_fixed_form_is_read(tmp_path, schedule):
    """fparser's fixed-form reader recurses once per comment line of a run:
    1,500 comment lines between two routines (headers of many routines
    left out of the parsed text) once gave a syntax error."""
    text = ("C adfort: routine=top dep=y indep=x\n"
            "C adfort: init x=0.5:1.5\n"
            "      SUBROUTINE SQ(X)\n      DOUBLE PRECISION X\n      X = X*SIN(X)\n"
            "      END\n" + "C     comment\n" * 1500 +
            "      SUBROUTINE TOP(X, Y)\n      DOUBLE PRECISION X, Y\n      CALL SQ(X)\n"
            "      Y = X*X\n      END\n")
    harness.check_source(tmp_path, "long_comments.f", text, schedule)
