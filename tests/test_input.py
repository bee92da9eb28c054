"""How real sources reach adfort: the C preprocessor (.F/.F90… with -D, -U,
-I), INCLUDE files, implicit typing made explicit.  The derivative checks
are the fixtures calls/ocean_column_f77 and calls/eos_preprocessed; here are
the front end's unit tests and every clear error (exit 1, file:line, no
output file)."""

import subprocess
import textwrap

import pytest
from psyclone.psyir.nodes import Routine

from adfort.errors import AdfortError, where
from adfort.frontend import read_file
from adfort.preprocess import Preprocessing
from harness import assert_clean_failure, run_adfort as run


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    # Fixed-form texts are written as they stand (columns matter).
    path.write_text(textwrap.dedent(text) if path.suffix.lower() == ".f90" else text)
    return path


def routine(tree, name):
    return next(r for r in tree.walk(Routine) if r.name.lower() == name)


def type_of(tree, unit, name):
    dtype = routine(tree, unit).symbol_table.lookup(name).datatype
    return dtype.intrinsic.name, str(getattr(dtype.precision, "name", dtype.precision))


SCALE_F90 = """\
    subroutine scale(x, y)
      real(kind=8), intent(in) :: x
      real(kind=8), intent(out) :: y
    #ifdef DOUBLE_IT
      y = FACTOR * x
    #else
      y = x
    #endif
    end subroutine scale
    """


# ---- the C preprocessor -------------------------------------------------

def test_capital_suffix_is_preprocessed_with_defines(tmp_path):
    src = write(tmp_path / "scale.F90", SCALE_F90)
    tree = read_file(str(src), Preprocessing(defines=["DOUBLE_IT", "FACTOR=3.0d0"]))
    assert "y = 3.0d0 * x" in routine(tree, "scale").debug_string()
    plain = read_file(str(src))
    assert "y = x" in plain.walk(Routine)[0].debug_string()
    undefined = read_file(str(src), Preprocessing(defines=["DOUBLE_IT", "FACTOR=2.0d0"],
                                                  undefines=["DOUBLE_IT"]))
    assert "y = x" in undefined.walk(Routine)[0].debug_string()


def test_lines_map_back_through_include_and_removed_lines(tmp_path):
    write(tmp_path / "inc" / "consts.h", "real(kind=8), parameter :: c = 2.0d0\n")
    src = write(tmp_path / "m.F90", """\
        module m
          implicit none
        #include "consts.h"
        contains
        #ifdef NEVER
          ! lines that vanish
        #endif
          subroutine s(x, y)
            real(kind=8), intent(in) :: x
            real(kind=8), intent(out) :: y
            y = c * x
          end subroutine s
        end module m
        """)
    tree = read_file(str(src), Preprocessing(include_dirs=[str(tmp_path / "inc")]))
    assignment = routine(tree, "s").children[0]
    assert where(assignment).endswith("m.F90:11")
    assert [line for name, line in tree.adfort_origin if name.endswith("consts.h")] == [1]


def test_cli_defines_undefines_and_include_dirs(tmp_path):
    write(tmp_path / "include" / "kinds.h", "integer, parameter :: wp = kind(1.0d0)\n")
    write(tmp_path / "eos.F90", """\
        module eos
          implicit none
        #include "kinds.h"
        contains
          subroutine rho(t, r)
            real(wp), intent(in) :: t
            real(wp), intent(out) :: r
        #ifdef NONLINEAR
            r = 1000.0_wp * (1.0_wp - COEF * t * t)
        #else
            r = 1000.0_wp * (1.0_wp - 2.0e-4_wp * t)
        #endif
          end subroutine rho
        end module eos
        """)
    done = run(["diff", "eos.F90", "--dep", "r", "--indep", "t", "-D", "NONLINEAR",
                "-DCOEF=5.0e-6_wp", "-I", "include", "-o", "-"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "5.0e-6_wp" in done.stdout
    done = run(["diff", "eos.F90", "--dep", "r", "--indep", "t", "-DNONLINEAR", "-U",
                "NONLINEAR", "-Iinclude", "-o", "-"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "2.0e-4_wp" in done.stdout and "COEF" not in done.stdout


def test_cpp_flag_preprocesses_any_suffix(tmp_path):
    write(tmp_path / "scale.f90", SCALE_F90)
    done = run(["diff", "scale.f90", "--dep", "y", "--indep", "x", "--cpp", "-DDOUBLE_IT",
                "-DFACTOR=4.0d0", "-o", "-"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "4.0d0" in done.stdout


def test_directives_in_a_file_not_preprocessed(tmp_path):
    write(tmp_path / "scale.f90", SCALE_F90)
    done = run(["diff", "scale.f90", "--dep", "y", "--indep", "x"], tmp_path)
    assert_clean_failure(done, tmp_path, "scale.f90:4:", "rename it 'scale.F90'", "--cpp")


def test_error_directive(tmp_path):
    write(tmp_path / "cfg.F90", """\
        subroutine cfg(x, y)
          real(kind=8) :: x, y
        #ifndef NLEV
        #error "define NLEV with -DNLEV=..."
        #endif
          y = x
        end subroutine cfg
        """)
    done = run(["diff", "cfg.F90", "--dep", "y", "--indep", "x"], tmp_path)
    assert_clean_failure(done, tmp_path, "cfg.F90:4:", "#error", "define NLEV")
    done = run(["diff", "cfg.F90", "--dep", "y", "--indep", "x", "-DNLEV=3"], tmp_path)
    assert done.returncode == 0, done.stderr


def test_missing_hash_include(tmp_path):
    write(tmp_path / "m.F90", """\
        module m
          implicit none
        #include "kinds.h"
        end module m
        """)
    done = run(["diff", "m.F90", "--dep", "y", "--indep", "x"], tmp_path)
    assert_clean_failure(done, tmp_path, "m.F90:3:", "'kinds.h' not found", "-I DIR")


def test_bad_define_is_a_user_error(tmp_path):
    write(tmp_path / "scale.F90", SCALE_F90)
    done = run(["diff", "scale.F90", "--dep", "y", "--indep", "x", "-D", "1BAD"], tmp_path)
    assert_clean_failure(done, tmp_path, "-D '1BAD'")


# ---- INCLUDE ----------------------------------------------------------------

BOX_F = """\
      SUBROUTINE BOX(X, Y)
      IMPLICIT DOUBLE PRECISION (A-H,O-Z)
      INCLUDE 'box.h'
      Y = A*X + B
      END
"""


def test_include_in_fixed_form_nested_and_from_search_path(tmp_path):
    write(tmp_path / "box.f", BOX_F)
    write(tmp_path / "h" / "box.h", "      COMMON /COEF/ A\n      include \"more.h\"\n")
    write(tmp_path / "h" / "more.h", "      PARAMETER (B = 2.5D0)\n")
    tree = read_file(str(tmp_path / "box.f"), Preprocessing(include_dirs=[str(tmp_path / "h")]))
    assert type_of(tree, "box", "a")[0] == "REAL"
    assert routine(tree, "box").symbol_table.lookup("b").is_constant
    assignment = routine(tree, "box").children[0]
    assert where(assignment).endswith("box.f:4")


def test_missing_include_names_the_include_line(tmp_path):
    write(tmp_path / "box.f", BOX_F)
    done = run(["diff", "box.f", "--dep", "y", "--indep", "x"], tmp_path)
    assert_clean_failure(done, tmp_path, "box.f:3:", "INCLUDE file 'box.h' not found")


def test_error_inside_an_included_file_names_it(tmp_path):
    write(tmp_path / "box.f", BOX_F)
    write(tmp_path / "box.h", "      COMMON /COEF/ A\n      PARAMETER (B = 2.5D0\n")
    done = run(["diff", "box.f", "--dep", "y", "--indep", "x"], tmp_path)
    assert_clean_failure(done, tmp_path, "box.h:2:")


# ---- implicit typing --------------------------------------------------------

def test_default_implicit_rules(tmp_path):
    src = write(tmp_path / "k.f", """\
      FUNCTION HEAT(N, T, C)
      DIMENSION T(N)
      HEAT = 0.0
      DO 10 I = 1, N
         HEAT = HEAT + C*T(I)
   10 CONTINUE
      END
""")
    tree = read_file(str(src))
    assert type_of(tree, "heat", "n")[0] == "INTEGER"
    assert type_of(tree, "heat", "i")[0] == "INTEGER"
    assert type_of(tree, "heat", "c") == ("REAL", "UNDEFINED")
    assert type_of(tree, "heat", "heat")[0] == "REAL"
    t = routine(tree, "heat").symbol_table.lookup("t")
    assert t.is_array and t.is_argument


@pytest.mark.parametrize("statement, precision", [
    ("IMPLICIT DOUBLE PRECISION (A-H,O-Z)", "DOUBLE"),
    ("IMPLICIT REAL*8 (A-H, O-Z)", "8"),
])
def test_implicit_real_kinds(tmp_path, statement, precision):
    src = write(tmp_path / "k.f", f"""\
      SUBROUTINE K(X, Y, N)
      {statement}
      IMPLICIT INTEGER (I-N)
      Y = X*DBLE(N)
      END
""")
    tree = read_file(str(src))
    assert type_of(tree, "k", "x") == ("REAL", precision)
    assert type_of(tree, "k", "y") == ("REAL", precision)
    assert type_of(tree, "k", "n")[0] == "INTEGER"


def test_implicit_none_and_host_association_are_respected(tmp_path):
    src = write(tmp_path / "m.f90", """\
        module m
          implicit double precision (a-h, o-z)
          double precision :: scale = 2.0d0
        contains
          subroutine s(x, y)
            y = scale * g(x)
          contains
            function g(z)
              g = z * scale + y0
            end function g
          end subroutine s
        end module m
        """)
    tree = read_file(str(src))
    table = routine(tree, "s").symbol_table
    assert "scale" not in table._symbols, "a module variable was redeclared"
    assert "g" not in table._symbols, "an internal function was declared in its host"
    assert type_of(tree, "s", "x") == ("REAL", "DOUBLE")
    # g became s_g (internal procedures are hoisted); y0 is its own local
    assert type_of(tree, "s_g", "y0") == ("REAL", "DOUBLE")
    assert "scale" not in routine(tree, "s_g").symbol_table._symbols
    strict = write(tmp_path / "n.f90", """\
        subroutine n(x, y)
          implicit none
          real :: x, y
          y = x + z
        end subroutine n
        """)
    with pytest.raises(AdfortError):
        # z has no type: the usual message, nothing declared behind the back
        from adfort.api import differentiate_file
        from adfort.schedules import SplitReversalSchedule
        differentiate_file(str(strict), ["y"], ["x"], SplitReversalSchedule())


def test_declarations_of_typed_names_in_dimension_statements(tmp_path):
    src = write(tmp_path / "k.f", """\
      SUBROUTINE K(N, X, Y)
      INTEGER N
      DOUBLE PRECISION X, Y, W
      PARAMETER (M = 4)
      DIMENSION X(N), W(M)
      COMMON /WORK/ Z(M)
      Y = X(1)*W(1)*Z(2)
      END
""")
    tree = read_file(str(src))
    table = routine(tree, "k").symbol_table
    assert table.lookup("x").is_array and table.lookup("w").is_array
    assert type_of(tree, "k", "x") == ("REAL", "DOUBLE")
    assert type_of(tree, "k", "z") == ("REAL", "UNDEFINED")
    assert table.lookup("z").is_array


# ---- external routines with assumed-shape arguments -----------------------

SMOOTH_F90 = """\
    ! A routine outside any module with assumed-shape arguments: callers,
    ! and the generated routines calling each other, need interfaces.
    subroutine smooth_cost(u, w, cost)
      implicit none
      real(kind=8), intent(in) :: u(:)
      real(kind=8), intent(in) :: w(:)
      real(kind=8), intent(out) :: cost
      integer :: i
      cost = 0.0d0
      do i = 2, size(u)
        cost = cost + w(i) * (u(i) - u(i-1))**2 + sin(u(i)) * w(i)
      end do
    end subroutine smooth_cost
    """

# The caller's side, as the README shows it.
SMOOTH_DRIVER = """\
    program check_smooth
      implicit none
      interface
        subroutine smooth_cost(u, w, cost)
          real(kind=8), intent(in) :: u(:), w(:)
          real(kind=8), intent(out) :: cost
        end subroutine smooth_cost
        subroutine smooth_cost_rev(u, u_adj, w, w_adj, cost, cost_adj)
          real(kind=8), intent(in) :: u(:), w(:)
          real(kind=8), intent(inout) :: u_adj(:), w_adj(:)
          real(kind=8), intent(out) :: cost
          real(kind=8), intent(inout) :: cost_adj
        end subroutine smooth_cost_rev
      end interface
      integer, parameter :: n = 7
      real(kind=8) :: u(n), w(n), du(n), dw(n), u_adj(n), w_adj(n)
      real(kind=8) :: cost, cost_adj, cp, cm, h, lhs, rhs
      integer :: i
      h = 1.0d-6
      do i = 1, n
        u(i) = 0.3d0 * i + 0.1d0 * sin(1.0d0 * i)
        w(i) = 1.0d0 + 0.05d0 * i
        du(i) = cos(2.0d0 * i)
        dw(i) = sin(3.0d0 * i)
      end do
      u_adj = 0.0d0
      w_adj = 0.0d0
      cost_adj = 1.5d0
      call smooth_cost_rev(u, u_adj, w, w_adj, cost, cost_adj)
      lhs = sum(u_adj * du) + sum(w_adj * dw)
      call smooth_cost(u + h * du, w + h * dw, cp)
      call smooth_cost(u - h * du, w - h * dw, cm)
      rhs = 1.5d0 * (cp - cm) / (2.0d0 * h)
      print *, lhs, rhs
      if (abs(lhs - rhs) > 1.0d-6 * max(abs(lhs), abs(rhs))) stop 1
    end program check_smooth
    """


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_external_routine_with_assumed_shape_arguments(tmp_path, schedule):
    import shutil
    write(tmp_path / "smooth.f90", SMOOTH_F90)
    write(tmp_path / "driver.f90", SMOOTH_DRIVER)
    done = run(["diff", "smooth.f90", "--dep", "cost", "--indep", "u,w", "--schedule",
                schedule, "-o", "smooth_ad.f90"], tmp_path)
    assert done.returncode == 0, done.stderr
    generated = (tmp_path / "smooth_ad.f90").read_text()
    if "call smooth_cost_rec(" in generated or "call smooth_cost_ret(" in generated:
        # Assumed-shape dummies: a caller of the motions needs their interface.
        assert "interface" in generated
    compiler = shutil.which("gfortran")
    build = subprocess.run([compiler, "-std=f2008", "-Wall", "-fcheck=all", "smooth.f90",
                            "smooth_ad.f90", "driver.f90", "-o", "check"], cwd=tmp_path,
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr + generated
    check = subprocess.run(["./check"], cwd=tmp_path, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


def test_internal_procedure_of_an_external_host_using_an_assumed_shape_array(tmp_path):
    write(tmp_path / "host.f90", """\
        subroutine host(u, cost)
          real(kind=8), intent(in) :: u(:)
          real(kind=8), intent(out) :: cost
          cost = total()
        contains
          real(kind=8) function total()
            total = sum(u**2)
          end function total
        end subroutine host
        """)
    done = run(["diff", "host.f90", "--dep", "cost", "--indep", "u"], tmp_path)
    assert_clean_failure(done, tmp_path, "host.f90:6:", "internal procedure 'total'",
                         "put 'host' in a module")


CALLER_F90 = """\
    ! The caller declares the external routine's interface itself, as the
    ! standard asks for assumed-shape dummies: adfort adds no second one.
    subroutine top(n, u, w, cost)
      implicit none
      integer, intent(in) :: n
      real(kind=8), intent(in) :: u(n), w(n)
      real(kind=8), intent(out) :: cost
      real(kind=8) :: v(n)
      interface
        subroutine smooth_cost(u, w, cost)
          real(kind=8), intent(in) :: u(:), w(:)
          real(kind=8), intent(out) :: cost
        end subroutine smooth_cost
      end interface
      v = 2.0d0 * u
      call smooth_cost(v, w, cost)
    end subroutine top
    """

CALLER_DRIVER = """\
    program check_top
      implicit none
      integer, parameter :: n = 7
      real(kind=8) :: u(n), w(n), du(n), dw(n), u_adj(n), w_adj(n)
      real(kind=8) :: cost, cost_adj, cp, cm, h, lhs, rhs
      integer :: i
      h = 1.0d-6
      do i = 1, n
        u(i) = 0.3d0 * i + 0.1d0 * sin(1.0d0 * i)
        w(i) = 1.0d0 + 0.05d0 * i
        du(i) = cos(2.0d0 * i)
        dw(i) = sin(3.0d0 * i)
      end do
      u_adj = 0.0d0
      w_adj = 0.0d0
      cost_adj = 1.5d0
      call top_rev(n, u, u_adj, w, w_adj, cost, cost_adj)
      lhs = sum(u_adj * du) + sum(w_adj * dw)
      call top(n, u + h * du, w + h * dw, cp)
      call top(n, u - h * du, w - h * dw, cm)
      rhs = 1.5d0 * (cp - cm) / (2.0d0 * h)
      print *, lhs, rhs
      if (abs(lhs - rhs) > 1.0d-6 * max(abs(lhs), abs(rhs))) stop 1
    end program check_top
    """


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_caller_declaring_the_interface_of_an_assumed_shape_external(tmp_path, schedule):
    import shutil
    write(tmp_path / "smooth.f90", SMOOTH_F90)
    write(tmp_path / "top.f90", CALLER_F90)
    write(tmp_path / "driver.f90", CALLER_DRIVER)
    done = run(["diff", "top.f90", "smooth.f90", "--routine", "top", "--dep", "cost",
                "--indep", "u,w", "--schedule", schedule, "-o", "top_ad.f90"], tmp_path)
    assert done.returncode == 0, done.stderr
    generated = (tmp_path / "top_ad.f90").read_text()
    build = subprocess.run([shutil.which("gfortran"), "-std=f2008", "-Wall", "-fcheck=all",
                            "smooth.f90", "top.f90", "top_ad.f90", "driver.f90", "-o", "check"],
                           cwd=tmp_path, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr + generated
    check = subprocess.run(["./check"], cwd=tmp_path, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr


def test_allocate_with_source_is_a_clear_error(tmp_path):
    write(tmp_path / "s.f90", """\
        subroutine s(n, x, y)
          integer, intent(in) :: n
          real(kind=8), intent(in) :: x(n)
          real(kind=8), intent(out) :: y
          real(kind=8), allocatable :: w(:)
          allocate(w(n), source=x)
          y = sum(w**2)
        end subroutine s
        """)
    done = run(["diff", "s.f90", "--dep", "y", "--indep", "x"], tmp_path)
    assert_clean_failure(done, tmp_path, "s.f90:6:", "source= is not supported",
                         "stat= and errmsg=")


def test_a_generic_call_no_specific_procedure_fits_is_a_clear_error(tmp_path):
    """The procedures of a generic interface are told apart by their
    arguments; when none fits (here: a rank the interface lacks) adfort
    says so instead of treating the call as one without source."""
    write(tmp_path / "g.f90", """\
        module g
          implicit none
          interface blend
            module procedure blend_point
          end interface blend
        contains
          subroutine blend_point(x, f)
            real(kind=8), intent(inout) :: x
            real(kind=8), intent(in) :: f
            x = x*f
          end subroutine blend_point
          subroutine top(n, x, y)
            integer, intent(in) :: n
            real(kind=8), intent(in) :: x(n)
            real(kind=8), intent(out) :: y(n)
            y = x
            call blend(y, 2.0d0)
          end subroutine top
        end module g
        """)
    done = run(["diff", "g.f90", "--routine", "top", "--dep", "y", "--indep", "x"], tmp_path)
    assert_clean_failure(done, tmp_path, "g.f90:17:", "generic interface 'blend'",
                         "blend_point", "specific procedure")


def test_argument_hiding_an_intrinsic_the_adjoint_calls(tmp_path):
    """A local named as an intrinsic is renamed in the adjoint
    (fixture shortwave_intrinsic_names.f90); a dummy argument keeps its name,
    so hiding an intrinsic the adjoint calls is an error at the routine."""
    write(tmp_path / "sized.f90", """\
        module sized
        contains
          subroutine total(size, x, s)
            integer, intent(in) :: size
            real(8), intent(in) :: x(size)
            real(8), intent(out) :: s
            real(8) :: y(size)
            y = x**2
            y = sin(y)
            s = sum(y*x)
          end subroutine total
        end module sized
        """)
    result = run(["diff", "sized.f90", "--dep", "s", "--indep", "x"], tmp_path)
    assert_clean_failure(result, tmp_path, "sized.f90:3:", "dummy argument 'size'",
                         "intrinsic SIZE", "rename")


@pytest.mark.parametrize("text, line, fragment", [
    ("module m\ncontains\n  subroutine f(dt, y)\n    real(8), intent(in) :: dt\n"
     "    real(8), intent(out) :: y\n    real(8) :: dT\n    dT = 2*dt\n    y = dT\n"
     "  end subroutine f\nend module m\n", 6, "'dT' declares 'dt' again"),
    ("subroutine f(dt, y)\n  real(8), intent(in) :: dt\n  real(8), intent(out) :: y\n"
     "  real(8) :: w, DT\n  y = dt\nend subroutine f\n", 4, "'DT' declares 'dt' again"),
    ("subroutine f(dt, y)\n  real(8), intent(in) :: dt\n  real(8), intent(out) :: y\n"
     "  real(8) :: dt\n  y = dt\nend subroutine f\n", 4, "'dt' is declared twice"),
])
def test_a_name_declared_twice_is_named(tmp_path, text, line, fragment):
    """A name declared twice (often in two cases: dT beside the dummy dt)
    gave "cannot read 'MODULE m' ... a construct it does not support"
    at line 1, or a PSyclone symbol-table error without a line."""
    (tmp_path / "k.f90").write_text(text)
    result = run(["diff", "k.f90", "--routine", "f", "--dep", "y", "--indep", "dt"], tmp_path)
    assert result.returncode == 1
    assert_clean_failure(result, tmp_path, f"k.f90:{line}:", fragment)


@pytest.mark.parametrize("name, text, line, fragment", [
    ("k.f90", "subroutine f(x, y)\n  real(8), intent(in) :: x\n  real(8), intent(out) :: y\n"
     "  y = x * &  ! scaled\n\n      2.0d0 + &\n      3.0d0 )\nend subroutine f\n", 4,
     "'y = x * 2.0d0 + 3.0d0 )'"),
    ("k.f", "      SUBROUTINE F(X, Y)\n      DOUBLE PRECISION X, Y\n      Y = X *\n"
     "C     scaled\n     &    2.0D0 +\n     1    3.0D0 )\n      END\n", 3,
     "'Y = X * 2.0D0 + 3.0D0 )'"),
])
def test_syntax_error_in_a_continued_statement_names_its_first_line(tmp_path, name, text,
                                                                      line, fragment):
    """fparser names the last line of a statement it cannot read and
    quotes only that line ('3.0d0 )'): the message names the first line
    and quotes the statement whole."""
    (tmp_path / name).write_text(text)
    result = run(["diff", name, "--routine", "f", "--dep", "y", "--indep", "x"], tmp_path)
    assert result.returncode == 1
    assert_clean_failure(result, tmp_path, f"{name}:{line}:", fragment, "syntax error")


@pytest.mark.parametrize("text, line, fragment", [
    ("module a\ncontains\n  subroutine f(x, y)\n    real(8), intent(in) :: x\n"
     "    real(8), intent(out) :: y\n    y = x**2\n  end subroutine f\nend module b\n",
     8, "expected <module-name> is a but got b"),
    ("subroutine f(x, y)\n  real(8), intent(in) :: x\n  real(8), intent(out) :: y\n"
     "  y = x**2\nend subroutine g\n", 5, "expected <subroutine-name> is f but got g"),
])
def test_mismatched_end_names_are_reported(tmp_path, text, line, fragment):
    """fparser's reader logged these and called sys.exit(1): adfort exited
    1 without a word."""
    (tmp_path / "k.f90").write_text(text)
    result = run(["diff", "k.f90", "--routine", "f", "--dep", "y", "--indep", "x"], tmp_path)
    assert result.returncode == 1
    assert_clean_failure(result, tmp_path, f"k.f90:{line}:", fragment, "syntax error")


HOISTED = {
    # The function made of an internal function of a routine outside any
    # module: the motions that call it (joint) knew no type for it (REAL:
    # did not compile).
    "external_host.f90": """\
        ! adfort: routine=obs_cost dep=y indep=x
        ! adfort: init n=4 x=0.5:1.5
        subroutine obs_cost(n, x, y)
          implicit none
          integer, intent(in) :: n
          double precision, intent(in) :: x(n)
          double precision, intent(out) :: y
          integer :: k
          y = 0d0
          do k = 1, n
            y = y + logterm(x(k)) + 0.5d0*weight(k)*x(k)**2
          end do
        contains
          double precision function logterm(a)
            double precision, intent(in) :: a
            double precision :: w
            w = log(a)
            logterm = w*a
          end function logterm
          function weight(k) result(wk)
            integer, intent(in) :: k
            real(kind=8) :: wk
            wk = logterm(dble(k) + 1d0)/dble(n)
          end function weight
        end subroutine obs_cost
        """,
    # A pure internal function reading its host's variable: the dummy it
    # became had no INTENT(IN) (did not compile).
    "pure_reading_its_host.f90": """\
        ! adfort: routine=sigma_cost dep=y indep=x
        ! adfort: init n=4 x=0.5:1.5
        module sigma_levels
          implicit none
        contains
          subroutine sigma_cost(n, x, y)
            integer, intent(in) :: n
            double precision, intent(in) :: x(n)
            double precision, intent(out) :: y
            integer :: k
            y = 0d0
            do k = 1, n
              y = y + x(k)*sig(k)
            end do
          contains
            pure double precision function sig(k)
              integer, intent(in) :: k
              double precision :: s
              s = dble(k)/dble(n)
              sig = s**1.5d0
            end function sig
          end subroutine sigma_cost
        end module sigma_levels
        """,
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("name", sorted(HOISTED))
def test_internal_functions_made_procedures_of_their_own(name, schedule, tmp_path):
    import harness
    harness.check_source(tmp_path, name, HOISTED[name], schedule)


def test_pointer_rank_remapping_is_a_clear_error(tmp_path):
    write(tmp_path / "remap.f90", """\
        subroutine remap(n, x, y)
          integer, intent(in) :: n
          real(8), intent(in) :: x(n)
          real(8), intent(out) :: y
          real(8), target :: buf(n)
          real(8), pointer :: p(:, :)
          buf = x**2
          p(1:2, 1:n/2) => buf
          y = sum(p(1, :)) + 2*sum(p(2, :))
        end subroutine remap
        """)
    done = run(["diff", "remap.f90", "--dep", "y", "--indep", "x"], tmp_path)
    assert_clean_failure(done, tmp_path, "remap.f90:8:", "rank remapping", "RESHAPE")


def test_unreadable_module_procedure_changing_an_active_module_variable(tmp_path):
    """A module procedure adfort cannot read (EQUIVALENCE) called without
    arguments: it sees its module's variables, and this one changes the
    active ``s``; the call was kept as a passive one (gradient 1 instead
    of 8x, no message)."""
    write(tmp_path / "eq.f90", """\
        module state
          implicit none
          real(8) :: s(3)
        end module state
        module physics
          use state
          implicit none
        contains
          subroutine update()
            real(8) :: a(3), b(3)
            equivalence (a, b)
            a = s*2
            s = b**2
          end subroutine update
        end module physics
        module driver
          use state
          use physics
          implicit none
        contains
          subroutine f(x, y)
            real(8), intent(in) :: x(3)
            real(8), intent(out) :: y
            s = x
            call update()
            y = sum(s)
          end subroutine f
        end module driver
        """)
    done = run(["diff", "eq.f90", "--routine", "f", "--dep", "y", "--indep", "x"], tmp_path)
    assert_clean_failure(done, tmp_path, "eq.f90:11:", "EQUIVALENCE is not supported")


def test_module_with_equivalence_used_by_the_routine(tmp_path):
    """A module of the file PSyclone cannot read (KPP's kpp_Global with
    ``EQUIVALENCE(C(1), VAR(1))``): the message said its variables were of
    unknown type and the module was not found, give its file."""
    write(tmp_path / "kpp.f90", """\
        module eq_global
          implicit none
          integer, parameter :: dp = 8, nspec = 4, nvar = 3, nfix = 1
          real(kind=dp) :: c(nspec)
          real(kind=dp) :: var(nvar), fix(nfix)
          equivalence (c(1), var(1))
          equivalence (c(4), fix(1))
        end module eq_global
        module eq_m
          use eq_global
        contains
          subroutine step(k, y)
            real(dp) :: k, y
            var(1) = var(1) - k*var(1)*fix(1)
            y = sum(c(1:nvar))
          end subroutine step
        end module eq_m
        """)
    done = run(["diff", "kpp.f90", "--routine", "step", "--dep", "y", "--indep", "k"], tmp_path)
    assert_clean_failure(done, tmp_path, "kpp.f90:6:", "cannot read 'MODULE eq_global'",
                         "EQUIVALENCE is not supported")
    assert "not found" not in done.stderr


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_pointer_associated_in_the_loop_it_is_taped_in(schedule, tmp_path):
    """``tn => tr(:, 2)`` at the top of each time step: the tape room for
    the loop was reserved before it with SIZE(tn) of a pointer not yet
    associated (a run-time error with checks, undefined without), and
    r_rev left tr as its input had it (the values put back through tn were
    not counted as put back into tr)."""
    import harness
    harness.check_source(tmp_path, "k.f90", """\
        ! adfort: routine=ptr_loop dep=cost indep=tr
        ! adfort: init n=4 tr=1:2
        module ptr_loop_mod
          implicit none
        contains
          subroutine ptr_loop(n, tr, cost)
            integer, intent(in) :: n
            real(8), intent(inout), target :: tr(n, 2)
            real(8), intent(out) :: cost
            real(8), pointer :: tn(:)
            integer :: it
            cost = 0.0d0
            do it = 1, 3
              tn => tr(:, 2)
              tn = tn*tr(:, 1)
              cost = cost + sum(tn**2)
            end do
          end subroutine ptr_loop
        end module ptr_loop_mod
        """, schedule)


def test_pointer_lower_bound_spec_is_a_clear_error(tmp_path):
    write(tmp_path / "lb.f90", """\
        subroutine lb(n, tr, cost)
          integer, intent(in) :: n
          real(8), intent(in), target :: tr(n, 2)
          real(8), intent(out) :: cost
          real(8), pointer :: tn(:)
          tn(0:) => tr(:, 2)
          cost = sum(tn**2) + tn(0)
        end subroutine lb
        """)
    done = run(["diff", "lb.f90", "--dep", "cost", "--indep", "tr"], tmp_path)
    assert_clean_failure(done, tmp_path, "lb.f90:6:", "new lower bounds")


@pytest.mark.parametrize("statement, line, words", [
    # PSyclone writes the intrinsic subroutine's call without CALL: the
    # message named the SUBROUTINE line.
    ("call co_sum(i)", 7, "CALL CO_SUM"),
    # A WRITE before a FORALL adfort refuses shares its opaque block: the
    # message named the WRITE and its line.
    ("write(*, *) 'relax'\n  forall (i = 2:n) x(i) = x(i-1) + w(i)", 8, "FORALL"),
])
def test_refused_statements_are_named_at_their_line(statement, line, words, tmp_path):
    (tmp_path / "k.f90").write_text(
        "subroutine relax(n, x, y)\n"
        "  integer, intent(in) :: n\n"
        "  real(8), intent(inout) :: x(n)\n"
        "  real(8), intent(out) :: y\n"
        "  real(8) :: w(n), t0\n"
        "  integer :: i\n"
        f"  {statement}\n"
        "  y = sum(x)\n"
        "end subroutine relax\n")
    done = run(["diff", "k.f90", "--dep", "y", "--indep", "x"], tmp_path)
    assert_clean_failure(done, tmp_path, f"k.f90:{line}:", words)
    assert "WRITE" not in done.stderr


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("call", ["g(x, 2d0)", "g(x, c=x)", "g(c=0.5d0*x, v=x)"])
def test_internal_function_called_with_literals_and_keywords(call, schedule, tmp_path):
    """The call of an internal function given the host's variables was
    rebuilt as an array section list, which takes no real literal or
    keyword (an internal error)."""
    import harness
    harness.check_source(tmp_path, "k.f90", f"""\
        ! adfort: routine=r dep=y indep=x
        ! adfort: init x=0.5:2
        module lit_mod
          implicit none
          real(8) :: scale = 1.5d0
        contains
          subroutine r(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            y = {call}
          contains
            real(8) function g(v, c)
              real(8), intent(in) :: v, c
              g = v*v*c*scale
            end function g
          end subroutine r
        end module lit_mod
        """, schedule)


def test_automatic_array_sized_by_a_module_variables_component(tmp_path):
    write(tmp_path / "k.f90", """\
        module cfg_mod
          implicit none
          type cfg_t
            integer :: nl = 3
          end type cfg_t
          type(cfg_t) :: cfg
        end module cfg_mod
        subroutine r(x, y)
          use cfg_mod
          implicit none
          real(8), intent(in) :: x
          real(8), intent(out) :: y
          real(8) :: w(cfg%nl)
          w = x*x
          y = sum(w)
        end subroutine r
        """)
    done = run(["diff", "k.f90", "--routine", "r", "--dep", "y", "--indep", "x"], tmp_path)
    assert_clean_failure(done, tmp_path, "k.f90:8:", "the bounds of 'w'", "allocatable")


def test_two_active_module_variables_of_one_name(tmp_path):
    """RRTMG's layout (every rrsw_kgNN module declares absa, rayl…): two
    active module variables of one name were reported as the routine's own
    variable ("'all_bands' has its own 'coef'"), which it has not."""
    write(tmp_path / "kg.f90", """\
        module kg_a
          implicit none
          real(8) :: coef = 2.0d0
        end module kg_a
        module kg_b
          implicit none
          real(8) :: coef = 3.0d0
        end module kg_b
        module bands
          implicit none
        contains
          subroutine band_a(x, y)
            use kg_a, only: coef
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            y = coef*x**2
          end subroutine band_a
          subroutine band_b(x, y)
            use kg_b, only: coef
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            y = coef*sin(x)
          end subroutine band_b
          subroutine all_bands(x, total)
            real(8), intent(in) :: x
            real(8), intent(out) :: total
            real(8) :: ya, yb
            call band_a(x, ya)
            call band_b(x, yb)
            total = ya + yb
          end subroutine all_bands
        end module bands
        """)
    done = run(["diff", "kg.f90", "--routine", "all_bands", "--dep", "total", "--indep",
                "x,kg_a::coef,kg_b::coef"], tmp_path)
    assert_clean_failure(done, tmp_path, "kg.f90:24:", "'kg_a::coef' and 'kg_b::coef'",
                         "rename one of the variables")
    assert "has its own" not in done.stderr


@pytest.mark.parametrize("body", [
    """\
  module subroutine sq(x, y)
    real(8), intent(in) :: x
    real(8), intent(out) :: y
    y = x*x
  end subroutine sq
""", """\
  module procedure sq
    y = x*x
  end procedure sq
"""])
def test_procedure_in_a_submodule(body, tmp_path):
    """A module procedure implemented in a submodule: "no source adfort can
    see: add its file" (it was in the file), or a syntax error for
    MODULE PROCEDURE."""
    write(tmp_path / "sub.f90", """\
        module mp
          implicit none
          interface
            module subroutine sq(x, y)
              real(8), intent(in) :: x
              real(8), intent(out) :: y
            end subroutine sq
          end interface
        contains
          subroutine f(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            call sq(x, y)
          end subroutine f
        end module mp
        submodule (mp) mp_impl
          implicit none
        contains
        """ + textwrap.indent(body, "        ")[8:] + """\
        end submodule mp_impl
        """)
    done = run(["diff", "sub.f90", "--routine", "f", "--dep", "y", "--indep", "x"], tmp_path)
    assert_clean_failure(done, tmp_path, "sub.f90:19:", "'sq' is implemented in submodule "
                         "'mp_impl' of module 'mp'", "put its body in module 'mp'")


def test_function_binding_of_a_component_is_a_clear_error(tmp_path):
    """``s%c%lim(x)``, a type-bound function of a component, reads as a
    component reference: it was differentiated as one (x_adj = 0 instead
    of s%c%k*2x, exit 0)."""
    write(tmp_path / "fc.f90", """\
        module fcm
          implicit none
          type :: inner
            real(8) :: k
          contains
            procedure, nopass :: lim
          end type inner
          type :: outer
            type(inner) :: c
          end type outer
        contains
          pure real(8) function lim(r)
            real(8), intent(in) :: r
            lim = r*r
          end function lim
          subroutine f(s, x, y)
            type(outer), intent(in) :: s
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            y = s%c%k*s%c%lim(x)
          end subroutine f
        end module fcm
        """)
    done = run(["diff", "fc.f90", "--routine", "f", "--dep", "y", "--indep", "x"], tmp_path)
    assert_clean_failure(done, tmp_path, "fc.f90:20:", "'lim' is no component of type 'inner'",
                         "call the function by its own name")


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_assignment_through_a_pointer_overlapping_its_right_side(schedule, tmp_path):
    """``p => w(2:n)`` then ``p = p*w(1:n-1)``: the right side reads what
    the assignment changes through another name.  The adjoint of w(1:n-1)
    was added before p's adjoint (an alias of w's) was taken (2.76 against
    3.44)."""
    import harness
    harness.check_source(tmp_path, "k.f90", """\
        ! adfort: routine=shift_scale dep=y indep=x
        ! adfort: init n=5 x=0.5:1.5 y=0
        subroutine shift_scale(n, x, y)
          integer, intent(in) :: n
          real(8), intent(in) :: x(n)
          real(8), intent(out) :: y
          real(8), target :: w(n)
          real(8), pointer :: p(:)
          w = x
          p => w(2:n)
          p = p*w(1:n-1)
          y = sum(w*w)
        end subroutine shift_scale
        """, schedule)


@pytest.mark.parametrize("body, line, fragment", [
    # More subscripts than dimensions (an internal error, exit 2).
    ("  real(8), intent(in) :: x\n  real(8), intent(inout) :: y\n  y = y + x(1)\n", 4,
     "'x(1)' gives 1 subscript to 'x', declared as a scalar"),
    ("  real(8), intent(in) :: x(3)\n  real(8), intent(inout) :: y\n  y = y + x(1, 2)\n", 4,
     "declared as an array of rank 1"),
    # Calls that do not fit the procedure (internal errors, exit 2).
    ("  real(8), intent(in) :: x\n  real(8), intent(inout) :: y\n  call g(x, y, x)\n", 4,
     "it gives 3 arguments to 'g', which takes 2"),
    ("  real(8), intent(in) :: x\n  real(8), intent(inout) :: y\n  y = g(x, y)\n", 4,
     "'g' is a subroutine, used here as a function"),
    ("  real(8), intent(in) :: x\n  real(8), intent(inout) :: y\n  call g(x, z=y)\n", 4,
     "'g' has no dummy argument 'z'"),
])
def test_invalid_references_are_named(tmp_path, body, line, fragment):
    """Fortran gfortran rejects, found before anything is generated."""
    (tmp_path / "k.f90").write_text(
        "subroutine k(x, y)\n" + body + "end subroutine k\n"
        "subroutine g(a, b)\n  real(8), intent(in) :: a\n  real(8), intent(inout) :: b\n"
        "  b = b*a\nend subroutine g\n")
    result = run(["diff", "k.f90", "--routine", "k", "--dep", "y", "--indep", "x"], tmp_path)
    assert result.returncode == 1, result.stderr
    assert_clean_failure(result, tmp_path, f"k.f90:{line}:", fragment)


@pytest.mark.parametrize("name, text, args, line, fragment", [
    # A NAMELIST WRITE was called a NAMELIST READ.
    ("k.f90", "subroutine k(x, y)\n  real(8), intent(in) :: x\n  real(8), intent(out) :: y\n"
     "  real(8) :: a\n  namelist /pars/ a\n  a = 2d0\n  write(*, nml=pars)\n  y = a*x*x\n"
     "end subroutine k\n", ["--dep", "y", "--indep", "x"], 7, "a NAMELIST WRITE"),
    # MAX1 and friends: "name its optional arguments (e.g. SUM(c, dim=1))".
    ("k.f", "      SUBROUTINE K(X, Y)\n      REAL*8 X, Y\n      REAL A\n      A = REAL(X)\n"
     "      Y = MAX1(A*3.0, 1.5) + X\n      END\n", ["--dep", "Y", "--indep", "X"], 5,
     "write INT(MAX(…)) instead"),
    # A deferred-length character: "pointers, derived types and other
    # attributes are not supported".
    ("k.f90", "subroutine k(x, y)\n  real(8), intent(in) :: x\n  real(8), intent(out) :: y\n"
     "  character(len=:), allocatable :: s\n  s = 'abc'\n  y = x*len(s)\n"
     "end subroutine k\n", ["--dep", "y", "--indep", "x"], 5,
     "'s' is a character of deferred length"),
    # An assumed-size workspace of rank 2 was shown as qw(*).
    ("k.f", "      SUBROUTINE K(NX, N, X, QW, Y)\n      INTEGER NX, N, I\n"
     "      DOUBLE PRECISION X(N), QW(NX,*), Y\n      DO 10 I = 1, N\n"
     "        QW(1,I) = X(I)**2\n   10 CONTINUE\n      Y = QW(1,1) + QW(1,N)\n      END\n",
     ["--dep", "Y", "--indep", "X"], 1, "(qw(nx,*))"),
    # Fortran fparser cannot read that is no syntax error: said "syntax error".
    ("k.f", "      SUBROUTINE K(X, Y)\n      DOUBLE PRECISION X, Y\n      INTEGER LAB(2)\n"
     "      DATA LAB /4HABCD, 4HEFGH/\n      Y = X*X\n      END\n",
     ["--dep", "Y", "--indep", "X"], 4, "a Hollerith constant in a DATA statement"),
    ("k.f90", "subroutine k(x, y)\n  real(8), intent(in) :: x(..)\n  real(8), intent(out) :: y\n"
     "  y = 1d0\nend subroutine k\n", ["--dep", "y", "--indep", "x"], 2,
     "assumed-rank arrays"),
    # A module ENUM: "a construct it does not support" at the module's line.
    ("k.f90", "module m\n  enum, bind(c)\n    enumerator :: red = 1, blue\n  end enum\n"
     "contains\n  subroutine k(x, y)\n    real(8), intent(in) :: x\n"
     "    real(8), intent(out) :: y\n    y = x*red\n  end subroutine k\nend module m\n",
     ["--routine", "k", "--dep", "y", "--indep", "x"], 2, "its ENUM is not supported"),
    # A parameterized derived type: "the definition ... is not in the files".
    ("k.f90", "module m\n  type pt(k)\n    integer, kind :: k = 8\n    real(k) :: v\n"
     "  end type\ncontains\n  subroutine r(x, y)\n    real(8), intent(in) :: x\n"
     "    real(8), intent(out) :: y\n    type(pt(8)) :: s\n    s%v = x\n    y = s%v*x\n"
     "  end subroutine\nend module\n", ["--routine", "r", "--dep", "y", "--indep", "x"], 11,
     "parameterized derived type"),
    # A PAUSE (Numerical Recipes) in a routine reversed joint: "this READ".
    ("k.f", "      SUBROUTINE G(X, Y)\n      DOUBLE PRECISION X, Y\n"
     "      IF (X .EQ. 0.D0) PAUSE 'bad x'\n      Y = Y + X**2\n      END\n"
     "      SUBROUTINE K(X, Y)\n      DOUBLE PRECISION X, Y\n      CALL G(X, Y)\n"
     "      Y = Y*X\n      END\n", ["--routine", "K", "--dep", "Y", "--indep", "X",
                                      "--schedule", "joint"], 3, "this PAUSE"),
    # An internal procedure of a main program: "no routine 'r' (routines: none)".
    ("k.f90", "program main\n  real(8) :: x, y\n  x = 1d0\n  call r(x, y)\ncontains\n"
     "  subroutine r(x, y)\n    real(8), intent(in) :: x\n    real(8), intent(out) :: y\n"
     "    y = x*x\n  end subroutine\nend program\n",
     ["--routine", "r", "--dep", "y", "--indep", "x"], 6,
     "internal procedure of the main program 'main'"),
])
def test_unsupported_constructs_are_named_for_what_they_are(tmp_path, name, text, args,
                                                            line, fragment):
    (tmp_path / name).write_text(text)
    result = run(["diff", name] + args, tmp_path)
    assert result.returncode == 1, result.stderr
    assert_clean_failure(result, tmp_path, f"{name}:{line}:", fragment)
