"""Defined assignments (``interface assignment(=)``, a type's ``generic ::
assignment(=)``) and defined operators (``interface operator(.dot.)``,
``operator(+)`` on derived-type values) become calls of their procedures
(adfort/defined_operations.py): ``y = x`` on a type with one was read as an
intrinsic component copy, in the generated code too (which imported the
type alone): primal and gradient wrong, without a message; a defined
operator was an "unsupported statement EXPR".

The kernels are FD-checked under split, joint and joint with calls kept
(no inlining), r_rev's primal results compared with r's; the procedures
adfort cannot tell are errors naming them."""

import shutil
import subprocess
import sys
import textwrap

import pytest

import harness

CASES = {
    # A type's generic assignment binding: its procedure takes the passed
    # object as CLASS(vec), read as TYPE(vec) (no type extends vec).
    "type_bound_assignment.f90": """\
        ! adfort: routine=s dep=y indep=x
        ! adfort: init x=0.5:1.5
        module m
          implicit none
          type :: vec
            real(8) :: a = 0d0
          contains
            procedure :: vset
            generic :: assignment(=) => vset
          end type
        contains
          subroutine vset(lhs, rhs)
            class(vec), intent(inout) :: lhs
            type(vec), intent(in) :: rhs
            lhs%a = 3d0*rhs%a
          end subroutine
          subroutine s(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            type(vec) :: v, w
            v%a = x
            w = v
            y = w%a
          end subroutine
        end module
        """,
    # The defined assignment doubles a component: a plain copy is another
    # value.  On locals, on a callee's derived-type dummies (the
    # reproducer), on elements of an array of the type.
    "defined_assignment.f90": """\
        ! adfort: routine=top dep=y indep=x
        ! adfort: init x=0.5:1.5
        module defined_assignment
          implicit none
          type :: pt
            real(8) :: a = 0d0, b = 0d0
          end type pt
          interface assignment(=)
            module procedure pt_assign
          end interface
        contains
          subroutine pt_assign(lhs, rhs)
            type(pt), intent(inout) :: lhs
            type(pt), intent(in) :: rhs
            lhs%a = 2d0*rhs%a + lhs%b
            lhs%b = rhs%a*rhs%b
          end subroutine pt_assign
          subroutine f(x, y)
            type(pt), intent(in) :: x
            type(pt), intent(inout) :: y
            y = x
          end subroutine f
          subroutine top(x, y)
            real(8), intent(in) :: x(2)
            real(8), intent(out) :: y(3)
            type(pt) :: p, q, r(2)
            p%a = x(1)
            p%b = x(2)
            q%b = 0.5d0
            call f(p, q)
            r(1) = q
            r(2) = r(1)
            p = r(2)
            y(1) = p%a
            y(2) = p%b
            y(3) = q%a*r(2)%b
          end subroutine top
        end module defined_assignment
        """,
    # A defined assignment from a real array (refused before, as a
    # derived-type value that is not a variable), an elemental one over an
    # array of the type, its right side reading what it assigns.
    "assignment_from_reals.f90": """\
        ! adfort: routine=g dep=y indep=x
        ! adfort: init n=4 x=0.5:1.5
        module assignment_from_reals
          implicit none
          type :: cell
            real(8) :: t = 0d0, q = 0d0
          end type
          type :: pair
            real(8) :: u = 0d0, v = 0d0
          end type
          interface assignment(=)
            module procedure set_cell, set_pair
          end interface
        contains
          elemental subroutine set_cell(c, v)
            type(cell), intent(out) :: c
            real(8), intent(in) :: v
            c%t = v
            c%q = 0.5d0*v**2
          end subroutine
          subroutine set_pair(p, w)
            type(pair), intent(out) :: p
            real(8), intent(in) :: w(2)
            p%u = w(1)*w(2)
            p%v = sin(w(2))
          end subroutine
          subroutine g(n, x, y)
            integer, intent(in) :: n
            real(8), intent(in) :: x(n)
            real(8), intent(out) :: y(n)
            type(cell) :: cs(n)
            type(pair) :: p
            integer :: i
            cs = x
            cs(2:n) = x(1:n-1)*cs(2:n)%t
            p = x(2:3)
            do i = 1, n
              y(i) = cs(i)%t + cs(i)%q*p%u + p%v
            end do
          end subroutine
        end module
        """,
    # The interface and its procedures in another module, the procedures
    # private (the module makes only the type and the assignment public),
    # the caller importing the assignment in an ONLY list: run as it is
    # under the joint schedule, the procedure is copied beside the caller.
    "private_assignment.f90": """\
        ! adfort: routine=g dep=y indep=x
        ! adfort: init x=0.5:1.5
        module vectors
          implicit none
          private
          public :: vec, assignment(=)
          type :: vec
            real(8) :: a = 0d0, b = 0d0
          end type
          interface assignment(=)
            module procedure copy_vec
          end interface
        contains
          subroutine copy_vec(lhs, rhs)
            type(vec), intent(inout) :: lhs
            type(vec), intent(in) :: rhs
            lhs%a = rhs%a + 0.5d0*rhs%b
            lhs%b = rhs%b*lhs%a
          end subroutine
        end module
        module user
          use vectors, only: vec, assignment(=)
          implicit none
        contains
          subroutine g(x, y)
            real(8), intent(in) :: x(2)
            real(8), intent(out) :: y(2)
            type(vec) :: v, w
            v%a = x(1)
            v%b = x(2)
            w%a = 1d0
            w = v
            y(1) = w%a
            y(2) = w%b*v%a
          end subroutine
        end module
        """,
    # Defined operators (reported as unsupported statements before): on
    # arrays and scalars, binary (a chain, left to right, below an
    # intrinsic operator in precedence) and unary (above it), inside an
    # intrinsic's argument, a call's argument and the procedures' own
    # operands; intrinsic operators on derived-type values returning a real
    # and a logical (in an IF condition).
    "defined_operators.f90": """\
        ! adfort: routine=energy dep=e indep=x
        ! adfort: init n=5 x=0.5:1.5
        module defined_operators
          implicit none
          type :: vec
            real(8) :: a = 0d0, b = 0d0
          end type
          interface operator(.dot.)
            module procedure dot_vv
          end interface
          interface operator(.hyp.)
            module procedure hyp
          end interface
          interface operator(.sq.)
            module procedure square
          end interface
          interface operator(<)
            module procedure shorter
          end interface
          interface operator(+)
            module procedure sum_vec
          end interface
        contains
          pure real(8) function dot_vv(a, b)
            real(8), intent(in) :: a(:), b(:)
            dot_vv = sum(a*b)
          end function
          pure real(8) function hyp(a, b)
            real(8), intent(in) :: a, b
            hyp = sqrt(a*a + b*b)
          end function
          pure real(8) function square(a)
            real(8), intent(in) :: a
            square = a*a
          end function
          logical function shorter(v, w)
            type(vec), intent(in) :: v, w
            shorter = v%a**2 + v%b**2 < w%a**2 + w%b**2
          end function
          real(8) function sum_vec(v, w)
            type(vec), intent(in) :: v, w
            sum_vec = v%a*w%b + v%b*w%a
          end function
          subroutine acc(s, t)
            real(8), intent(inout) :: s
            real(8), intent(in) :: t
            s = s + t*s
          end subroutine
          subroutine energy(n, x, e)
            integer, intent(in) :: n
            real(8), intent(in) :: x(n)
            real(8), intent(out) :: e
            type(vec) :: v, w
            e = sqrt(x .dot. x) + 1d0
            e = e + x(1) .hyp. x(2) .hyp. x(3)
            e = e * (.sq. x(4) + 2d0) - .sq. (x(5) .hyp. e)
            call acc(e, x(2:n) .dot. x(1:n-1))
            v%a = x(1); v%b = x(2)
            w%a = x(3); w%b = e
            if (v < w) then
              e = e + (v + w)
            else
              e = e - 0.5d0*(w + v)
            end if
          end subroutine
        end module
        """,
    # A generic operator of two specifics (arrays, a type), a unary one, a
    # defined assignment from a real array section and another between
    # values of the type, all private to their module and imported in ONLY
    # lists by the caller's module.
    "operators_across_modules.f90": """\
        ! adfort: routine=g dep=e,y indep=x
        ! adfort: init n=4 x=0.5:1.5
        module vecops
          implicit none
          private
          public :: vec, operator(.dot.), operator(+), operator(*), assignment(=), operator(.norm.)
          type :: vec
            real(8) :: a = 0d0, b = 0d0
          end type
          interface operator(.dot.)
            module procedure dot_vv, dot_ww
          end interface
          interface operator(+)
            module procedure addv
          end interface
          interface operator(*)
            module procedure scalev
          end interface
          interface operator(.norm.)
            module procedure normv
          end interface
          interface assignment(=)
            module procedure from_arr, copyv
          end interface
        contains
          subroutine from_arr(lhs, rhs)
            type(vec), intent(out) :: lhs
            real(8), intent(in) :: rhs(2)
            lhs%a = rhs(1)
            lhs%b = rhs(2)**2
          end subroutine
          subroutine copyv(lhs, rhs)
            type(vec), intent(inout) :: lhs
            type(vec), intent(in) :: rhs
            lhs%a = rhs%a + 0.5d0*rhs%b
            lhs%b = rhs%b*lhs%a
          end subroutine
          pure function addv(x, y) result(z)
            type(vec), intent(in) :: x, y
            type(vec) :: z
            z%a = x%a + y%a
            z%b = x%b * y%b
          end function
          pure function scalev(s, x) result(z)
            real(8), intent(in) :: s
            type(vec), intent(in) :: x
            type(vec) :: z
            z%a = s*x%a
            z%b = s*x%b
          end function
          pure real(8) function normv(x)
            type(vec), intent(in) :: x
            normv = sqrt(x%a**2 + x%b**2)
          end function
          pure real(8) function dot_vv(a, b)
            real(8), intent(in) :: a(:), b(:)
            dot_vv = sum(a*b)
          end function
          pure real(8) function dot_ww(a, b)
            type(vec), intent(in) :: a, b
            dot_ww = a%a*b%a + a%b*b%b
          end function
        end module
        module user
          use vecops, only: operator(.dot.), vec, assignment(=), operator(.norm.)
          implicit none
        contains
          subroutine g(n, x, e, y)
            integer, intent(in) :: n
            real(8), intent(in) :: x(n)
            real(8), intent(out) :: e, y(2)
            type(vec) :: v, w
            e = x .dot. x + 1d0
            v = x(1:2)
            w = v
            e = e + 2d0*(v .dot. w) + .norm. w
            if ((v .dot. w) > 0d0) e = e * (w .dot. w)
            y(1) = w%a
            y(2) = w%b
          end subroutine
        end module
        """,
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients(tmp_path, name, schedule):
    harness.check_source(tmp_path, name, CASES[name], schedule)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_calls_kept(tmp_path, name):
    path = tmp_path / name
    path.write_text(textwrap.dedent(CASES[name]))
    res = harness.check_fixture(path, "joint", tmp_path / "joint-calls",
                                extra_cli=["--no-inline"])
    assert res.rel_err < 1e-6, res.describe()
    assert res.primal_err < 1e-10, res.describe()


REPRODUCER = """\
    module fm
      implicit none
      type :: pt
        real(8) :: a = 0d0, b = 0d0
      end type pt
      interface assignment(=)
        module procedure pt_assign
      end interface
    contains
      subroutine pt_assign(lhs, rhs)
        type(pt), intent(inout) :: lhs
        type(pt), intent(in) :: rhs
        lhs%a = 2d0 * rhs%a
        lhs%b = rhs%a
      end subroutine pt_assign
      subroutine f(x, y)
        type(pt), intent(in) :: x
        type(pt), intent(inout) :: y
        y = x
      end subroutine f
    end module fm
    """

DRIVER = """\
    program d
      use fm
      use fm_ad
      implicit none
      type(pt) :: x, y
      type(pt_adj) :: xa, ya
      x%a = 3d0
      x%b = 5d0
      xa%a = 0
      xa%b = 0
      ya%a = 1d0
      ya%b = 0d0
      call f_rev(x, xa, y, ya)
      print '(4f8.3)', y%a, y%b, xa%a, xa%b
    end program
    """


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_defined_assignment_of_derived_arguments(tmp_path, schedule):
    """The reproducer: the dependent and independent are of the type
    (f_rev gave y = (3, 5) and d(y%a)/d(x%a) = 1)."""
    (tmp_path / "fm.f90").write_text(textwrap.dedent(REPRODUCER))
    (tmp_path / "drv.f90").write_text(textwrap.dedent(DRIVER))
    subprocess.run([sys.executable, "-m", "adfort", "diff", "fm.f90", "--routine",
                    "f", "--dep", "y", "--indep", "x", "--schedule", schedule,
                    "-o", "fm_ad.f90"], cwd=tmp_path, check=True, capture_output=True)
    subprocess.run([shutil.which("gfortran"), "-fcheck=all", "fm.f90", "fm_ad.f90",
                    "drv.f90", "-o", "drv"], cwd=tmp_path, check=True)
    out = subprocess.run([str(tmp_path / "drv")], check=True, capture_output=True,
                         text=True).stdout
    assert [float(v) for v in out.split()] == [6.0, 3.0, 2.0, 0.0]


ERRORS = {
    # A real assigned from a type with no defined assignment visible
    # (its interface is in a module the routine does not use).
    "unseen_assignment": ("""\
        module kinds_and_types
          implicit none
          type :: box
            real(8) :: w = 0d0
          end type
        end module
        module other
          use kinds_and_types
          implicit none
          interface assignment(=)
            module procedure from_box
          end interface
        contains
          subroutine from_box(r, b)
            real(8), intent(out) :: r
            type(box), intent(in) :: b
            r = b%w
          end subroutine
        end module
        module m
          use kinds_and_types
          implicit none
        contains
          subroutine s(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            type(box) :: b
            b%w = x
            y = b
          end subroutine
        end module
        """, ":29:", ["defined assignment", "'y = b'", "no interface assignment(=)"]),
    # Two specifics adfort cannot tell apart (kinds it cannot work out).
    "ambiguous_assignment": ("""\
        module m
          implicit none
          integer, parameter :: k1 = selected_real_kind(6, 30)
          integer, parameter :: k2 = selected_real_kind(15, 300)
          type :: box
            real(8) :: w = 0d0
          end type
          interface assignment(=)
            module procedure from_k1, from_k2
          end interface
        contains
          subroutine from_k1(b, r)
            type(box), intent(out) :: b
            real(k1), intent(in) :: r
            b%w = r
          end subroutine
          subroutine from_k2(b, r)
            type(box), intent(out) :: b
            real(kind=k2), intent(in) :: r
            b%w = 2*r
          end subroutine
          subroutine s(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            type(box) :: b
            b = x
            y = b%w
          end subroutine
        end module
        """, ":26:", ["defined assignment", "from_k1, from_k2", "by its name"]),
    # An element assigned from an element of the same array that may be
    # the same one: Fortran passes a copy of it.
    "overlapping_assignment": ("""\
        module m
          implicit none
          type :: box
            real(8) :: w = 0d0
          end type
          interface assignment(=)
            module procedure add_box
          end interface
        contains
          subroutine add_box(b, c)
            type(box), intent(inout) :: b
            type(box), intent(in) :: c
            b%w = b%w + c%w
          end subroutine
          subroutine s(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            type(box) :: b(2)
            integer :: i
            b(1)%w = x
            b(2)%w = x
            i = 2
            b(i) = b(i - 1)
            b(1) = b(i - 1)
            y = b(1)%w
          end subroutine
        end module
        """, ":24:", ["defined assignment", "'b(1) = b(i - 1)'", "may be the variable it "
                      "assigns", "assign from another variable"]),
    # A defined operator no interface of the scope declares.
    "unknown_operator": ("""\
        module m
          implicit none
          type :: vec
            real(8) :: a = 0d0, b = 0d0
          end type
          interface operator(.cross.)
            module procedure cross
          end interface
        contains
          real(8) function cross(v, w)
            type(vec), intent(in) :: v, w
            cross = v%a*w%b - v%b*w%a
          end function
          subroutine s(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            type(vec) :: v
            v%a = x
            y = v .neg. x
          end subroutine
        end module
        """, ":19:", ["defined operator .neg.", "'v .NEG. x'", "no interface operator(.neg.)"]),
    # Its procedure does not take the operands (a real for a vec).
    "operator_operands": ("""\
        module m
          implicit none
          type :: vec
            real(8) :: a = 0d0, b = 0d0
          end type
          interface operator(.cross.)
            module procedure cross
          end interface
        contains
          real(8) function cross(v, w)
            type(vec), intent(in) :: v, w
            cross = v%a*w%b - v%b*w%a
          end function
          subroutine s(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            type(vec) :: v
            v%a = x
            y = 2*(v .cross. x)
          end subroutine
        end module
        """, ":19:", ["defined operator .cross.", "none of its procedures (cross)",
                      "by its name"]),
    # An intrinsic operator on derived-type values, no interface for it.
    "intrinsic_operator": ("""\
        module m
          implicit none
          type :: vec
            real(8) :: a = 0d0, b = 0d0
          end type
        contains
          subroutine s(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            type(vec) :: v, w
            v%a = x
            w = v
            if (v == w) y = x
          end subroutine
        end module
        """, ":13:", ["operator == on derived-type values", "'v == w'"]),
    # An intrinsic assignment of a type whose component's type has a
    # type-bound defined assignment: Fortran calls it for the component.
    "component_assignment": ("""\
        module m
          implicit none
          type :: vec
            real(8) :: a = 0d0
          contains
            procedure :: vset
            generic :: assignment(=) => vset
          end type
          type :: holder
            integer :: n = 0
            type(vec) :: v
          end type
        contains
          subroutine vset(lhs, rhs)
            class(vec), intent(inout) :: lhs
            type(vec), intent(in) :: rhs
            lhs%a = 3d0*rhs%a
          end subroutine
          subroutine s(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            type(holder) :: p, q
            p%v%a = x
            q = p
            y = q%v%a
          end subroutine
        end module
        """, ":24:", ["'q = p'", "q%v has a type-bound defined assignment",
                      "assign the components one by one"]),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_procedure_adfort_cannot_tell_is_an_error(tmp_path, case):
    text, place, words = ERRORS[case]
    path = tmp_path / f"{case}.f90"
    path.write_text(textwrap.dedent(text))
    proc = subprocess.run([sys.executable, "-m", "adfort", "diff", str(path),
                           "--routine", "s", "--dep", "y", "--indep", "x", "-o",
                           str(tmp_path / "out.f90")], capture_output=True, text=True)
    assert proc.returncode == 1, proc.stderr
    assert f"{path.name}{place}" in proc.stderr, proc.stderr
    for word in words:
        assert word in proc.stderr, proc.stderr
