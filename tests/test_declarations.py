"""F77 specification idioms PSyclone cannot represent, rewritten before
parsing (adfort/declarations.py): each keeps the lines of the source."""

import pytest

from adfort.declarations import rewrite_specifications
from adfort.errors import AdfortError
from adfort.frontend import read_file


def _rewrite(source, fixed=True):
    out = rewrite_specifications(source, fixed)
    assert len(out.splitlines()) == len(source.splitlines())
    return out.splitlines()


def test_dimension_statement_moves_bounds_to_the_type_declaration():
    out = _rewrite("      SUBROUTINE S(N, A, X)\n"
                   "      INTEGER N\n"
                   "      DOUBLE PRECISION A, X, T\n"
                   "      DIMENSION A(N,N), X(N)\n"
                   "      T = 1\n"
                   "      END\n")
    assert out[2].strip() == "DOUBLE PRECISION A(N,N), X(N), T"
    assert out[3].strip() == ""


def test_dimension_of_an_implicitly_typed_name_follows_the_implicit_rules():
    out = _rewrite("subroutine s(n, x, k)\n"
                   "  implicit double precision (a-h, o-z)\n"
                   "  dimension x(n), k(n)\n"
                   "end subroutine\n", fixed=False)
    assert out[2].strip() == "double precision x(n); integer k(n)"


def test_intrinsic_statement_is_dropped_and_typed_intrinsics_used_as_functions():
    out = _rewrite("      SUBROUTINE S(X, Y, SUM)\n"
                   "      DOUBLE PRECISION X, Y, SUM, DABS, DSQRT, MAX\n"
                   "      INTRINSIC DMAX1,\n"
                   "     *          DMIN1\n"
                   "      MAX = 2\n"
                   "      Y = DSQRT(DABS(X)) + SUM + MAX\n"
                   "      END\n")
    # DABS and DSQRT are called: the intrinsics; SUM is an argument and
    # MAX a variable assigned here: both stay declared.
    assert out[1].strip() == "DOUBLE PRECISION X, Y, SUM, MAX"
    assert out[2].strip() == "" and out[3].strip() in ("", "C")


def test_recursive_prefix_is_dropped_also_across_a_continuation():
    out = _rewrite("      recursive\n"
                   "     *double precision function f(x)\n"
                   "      double precision x\n"
                   "      f = x*x\n"
                   "      end\n")
    assert out[0].strip() == "double precision function f(x)"
    assert out[1].strip().upper() == "C"


def test_contiguous_attribute_and_statement_are_dropped():
    out = _rewrite("subroutine s(h, u, w)\n"
                   "  real(8), contiguous, intent(in) :: h(:)\n"
                   "  real(8), intent(inout), CONTIGUOUS :: u(:, :)\n"
                   "  real(8), intent(out) :: w(0:)\n"
                   "  contiguous :: w\n"
                   "  real(8) :: contiguous_sum\n"
                   "  contiguous_sum = sum(h)\n"
                   "  w = contiguous_sum\n"
                   "end subroutine\n", fixed=False)
    assert out[1].strip() == "real(8), intent(in) :: h(:)"
    assert out[2].strip() == "real(8), intent(inout) :: u(:, :)"
    assert out[3].strip() == "real(8), intent(out) :: w(0:)"
    assert out[4].strip() == ""
    assert out[5].strip() == "real(8) :: contiguous_sum"


def test_several_dropped_attributes_of_one_declaration_all_go():
    """CONTIGUOUS, PROTECTED and VALUE are dropped one after the other from
    the text the previous one left (the first rewrite was overwritten)."""
    from adfort.declarations import rewrite_specifications
    protected, by_value = set(), set()
    out = rewrite_specifications(
        "module m\n"
        "  type :: col_t\n"
        "    real(8) :: t\n"
        "  end type\n"
        "  real(8), pointer, contiguous, protected :: p(:)\n"
        "contains\n"
        "  subroutine s(n, h)\n"
        "    integer, value :: n\n"
        "    class(col_t), contiguous, intent(in) :: h(:)\n"
        "  end subroutine\n"
        "end module\n", False, protected=protected, by_value=by_value).splitlines()
    assert out[4].strip() == "real(8), pointer :: p(:)"
    assert out[7].strip() == "integer :: n"
    assert out[8].strip().lower() == "type(col_t), intent(in) :: h(:)"
    assert protected == {"p"} and by_value == {("s", "n")}


def test_type_bound_procedures_of_a_type_definition_are_dropped():
    out = _rewrite("module m\n"
                   "  type, public :: col_t\n"
                   "    real(8), allocatable :: t(:)\n"
                   "  contains\n"
                   "    procedure, nopass :: describe\n"
                   "    generic :: show => describe\n"
                   "  end type col_t\n"
                   "contains\n"
                   "  subroutine describe()\n"
                   "  end subroutine describe\n"
                   "end module m\n", fixed=False)
    assert [line.strip() for line in out[3:6]] == ["", "", ""]
    assert out[6].strip() == "end type col_t" and out[7].strip() == "contains"


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_state_of_a_type_with_type_bound_procedures_is_differentiated(schedule, tmp_path):
    # The bindings made PSyclone keep the whole type as text: adfort then
    # said the type's definition was missing.
    import harness
    harness.check_source(tmp_path, "k.f90", """\
        ! adfort: routine=run dep=cost indep=x
        ! adfort: init n=4 x=0.5:1.5
        ! adfort: shape x=n
        module m
          implicit none
          type :: col_t
            real(8), allocatable :: t(:)
          contains
            procedure, nopass :: nlev
          end type col_t
        contains
          integer function nlev()
            nlev = 4
          end function nlev

          subroutine warm(c, rate)
            type(col_t), intent(inout) :: c
            real(8), intent(in) :: rate
            c%t = c%t + rate*c%t**2
          end subroutine warm

          subroutine run(n, x, cost)
            integer, intent(in) :: n
            real(8), intent(in) :: x(n)
            real(8), intent(out) :: cost
            type(col_t) :: c
            allocate(c%t(n))
            c%t = x
            call warm(c, 0.1d0)
            cost = sum(c%t**2)
            deallocate(c%t)
          end subroutine run
        end module m
        """, schedule)


def test_equivalence_is_reported_at_its_own_line(tmp_path):
    path = tmp_path / "eq.f90"
    path.write_text("subroutine s(x, y)\n  real x, y, a, b\n"
                    "  equivalence (a, b)\n  y = x\nend\n")
    tree = read_file(str(path))
    error = tree.adfort_unreadable["s"]
    assert isinstance(error, AdfortError)
    assert error.location == f"{path}:3"
    assert "EQUIVALENCE" in error.message


def test_routine_that_really_recurses_is_still_rejected(tmp_path):
    from adfort.program import Program, call_graph
    from adfort.frontend import find_routine
    path = tmp_path / "rec.f"
    path.write_text("      RECURSIVE SUBROUTINE R(N, X)\n"
                    "      INTEGER N\n      DOUBLE PRECISION X\n"
                    "      IF (N .GT. 0) CALL R(N - 1, X)\n"
                    "      X = X*X\n      END\n")
    tree = read_file(str(path))
    with pytest.raises(AdfortError, match="recursi"):
        call_graph(Program([tree]), find_routine(tree, "r"), str(path))


def test_overwritten_assumed_size_array_is_measured_not_run_again(tmp_path):
    """DSCAL-style scaling of X(*) in place, with or without I/O: r_rev
    keeps X up to the extent the recording motion measured (adfort.extents)
    instead of refusing (with I/O) or running r again (without): the PRINT
    runs once."""
    from adfort.api import differentiate_file
    from adfort.schedules import SplitReversalSchedule
    path = tmp_path / "sc.f"
    source = ("C     scale a vector in place\n"
              "      SUBROUTINE SC(N, A, X)\n      INTEGER N, I\n"
              "      DOUBLE PRECISION A, X(*)\n      DO 10 I = 1, N\n"
              "         X(I) = A*X(I)\n   10 CONTINUE\n      PRINT *, N\n      END\n")
    for text in (source, source.replace("      PRINT *, N\n", "")):
        path.write_text(text)
        output = differentiate_file(str(path), ["x"], ["a", "x"], SplitReversalSchedule())
        out = (output if isinstance(output, str) else str(output)).lower()
        assert "subroutine sc_rec(n, a, x, x_extent)" in out
        assert "x_extent = max(x_extent, i)" in out
        assert "allocate(x_out, source=x(1:x_extent))" in out
        assert "call sc(n, a, x)" not in out


def test_two_argument_atan_is_read_as_atan2():
    from adfort.frontend import two_argument_atan
    source = ("  c = atan(y, x) + atan(z) + 2*ATAN (a(i, j), b(max(i, 1)))  ! atan(p, q)\n"
              "  s = 'atan(1, 2)'\n")
    out = two_argument_atan(source).splitlines()
    assert out[0] == "  c = atan2(y, x) + atan(z) + 2*atan2(a(i, j), b(max(i, 1)))  ! atan(p, q)"
    assert out[1] == "  s = 'atan(1, 2)'"


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_two_argument_atan_is_differentiated(schedule, tmp_path):
    import harness
    harness.check_source(tmp_path, "k.f90", """\
        ! adfort: routine=f dep=c indep=x,y
        ! adfort: init x=0.5:1.5 y=0.5:1.5
        module m1
          implicit none
        contains
          subroutine f(x, y, c)
            real(8), intent(in) :: x, y
            real(8), intent(out) :: c
            c = atan(y, x)*atan(x)
          end subroutine f
        end module m1
        """, schedule)


def test_use_with_renames_but_no_only_is_split():
    out = _rewrite("module consts\n"
                   "  use consts_base, cpd => cp_dry, rv => r_vap\n"
                   "  use, intrinsic :: iso_fortran_env, only: real64\n"
                   "  use other_mod\n"
                   "end module consts\n", fixed=False)
    assert out[1].strip() == ("use consts_base; use consts_base, only: cpd => cp_dry, "
                              "rv => r_vap")
    assert out[2].strip() == "use, intrinsic :: iso_fortran_env, only: real64"
    assert out[3].strip() == "use other_mod"



F77_TEXT = {
    # DIMENSION X(N), P(N) then a type statement the bounds would make too
    # long for its line: the bounds were lost (the arrays read as scalars,
    # "statement function" rejected). They are declared where DIMENSION was.
    "dimension then a long type statement": 'C DIMENSION + a type statement that becomes longer than 66 characters\nC once the bounds are moved into it: the bounds are lost and the array\nC is read as a scalar (rejected as a "statement function").\nC adfort: routine=DIMTYP dep=Y indep=XXXXXXXXXXXX\nC adfort: init N=3 XXXXXXXXXXXX=1:2\n      SUBROUTINE DIMTYP(N, XXXXXXXXXXXX, PPPPPPPPPPPP, Y)\n      DIMENSION XXXXXXXXXXXX(N), PPPPPPPPPPPP(N)\n      DOUBLE PRECISION XXXXXXXXXXXX, PPPPPPPPPPPP, YYYYYYYYYYYYYYYYYY, Y\n      Y = 0.D0\n      DO 10 I = 1, N\n        PPPPPPPPPPPP(I) = XXXXXXXXXXXX(I)**2\n        Y = Y + PPPPPPPPPPPP(I)\n   10 CONTINUE\n      RETURN\n      END\n',
    # A GO TO made into an IF indents a statement ending at column 72: it
    # was wrapped inside the name JL, which fparser cannot read.
    "a statement re-indented past column 72": "C A forward GO TO around a statement that ends at column 72: adfort\nC restructures the GO TO into an IF block, indents the statement by two\nC columns and wraps it at column 72 in the middle of the name JL; its\nC own reader (fparser) then rejects adfort's rewritten text.\nC adfort: routine=GOWRAP dep=Y indep=T\nC adfort: init N=2 T=250:300\n      SUBROUTINE GOWRAP(N, T, Y)\n      INTEGER N, JL\n      DOUBLE PRECISION T(N), Y, RRRRRRRRRRR, RRRR\n      RRRRRRRRRRR = 2.D0\n      RRRR = 3.D0\n      Y = 0.D0\n      DO 100 JL = 1, N\n        IF (T(JL) .LT. 0.D0) GOTO 60\n        Y = Y+RRRRRRRRRRR*RRRRRRRRRRR*RRRRRRRRRRR*RRRRRRRRRRR*RRRR/T(JL)\n   60   CONTINUE\n  100 CONTINUE\n      RETURN\n      END\n",
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("case", sorted(F77_TEXT))
def test_fixed_form_rewrites_keep_their_lines_readable(case, schedule, tmp_path):
    import harness
    harness.check_source(tmp_path, "k.f", F77_TEXT[case], schedule)
