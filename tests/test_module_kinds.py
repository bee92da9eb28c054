"""Kind parameters and module symbols in the generated code, as real model
code declares them (GSW, ICON, NCAR ccpp, CESM): kinds local to a callee,
private to a module, aliased, renamed on import, brought by a wildcard USE
into a module typed implicitly.  Each case is checked against finite
differences under both schedules, the generated code compiled with
``-std=f2008 -Wall``."""

import shutil
import textwrap

import pytest

import harness

needs_gfortran = pytest.mark.skipif(shutil.which("gfortran") is None, reason="no gfortran")
SCHEDULES = ["split", "joint"]




CASES = {
    # A function's result kind the caller cannot name (GSW's local
    # 'r14 = selected_real_kind(14,30)'; a kind the function alone imports;
    # a private or unimported kind of its module): the temporaries holding
    # its value in an expression or an elemental call on arrays were
    # declared with it (internal error).  The caller's own 'r14' is another
    # constant.
    "callee_result_kinds.f90": """\
        ! adfort: routine=top dep=y indep=x
        module kinds_lib
          implicit none
          integer, parameter :: r8 = selected_real_kind(14, 30)
        end module kinds_lib
        module tb
          implicit none
          integer, parameter, private :: rp = selected_real_kind(12)
          integer, parameter :: rm = selected_real_kind(13)
        contains
          elemental function cube(x)
            integer, parameter :: r14 = selected_real_kind(14, 30)
            real(r14), intent(in) :: x
            real(r14) :: cube
            cube = x*x*x
          end function cube
          elemental function sq(x)
            use kinds_lib, only: r8
            real(r8), intent(in) :: x
            real(r8) :: sq
            sq = x*sin(x)
          end function sq
          function half(x)
            real(rp), intent(in) :: x
            real(rp) :: half
            half = 0.5_rp*x*x
          end function half
          function twice(x)
            real(rm), intent(in) :: x
            real(rm) :: twice
            twice = 2.0_rm*exp(x)
          end function twice
        end module tb
        module m
          implicit none
        contains
          subroutine top(x, y)
            use tb, only: cube, sq, half, twice
            integer, parameter :: r14 = kind(1.0)
            real(8), intent(in) :: x(3)
            real(8), intent(out) :: y(3)
            real(r14) :: scale
            integer :: i
            scale = 2.0_r14
            y = cube(x) + sq(x)*scale
            do i = 1, 3
              y(i) = y(i)*half(x(i)) + twice(x(i))*y(i) + cube(x(i))*y(i)
            end do
          end subroutine top
        end module m
        """,
    # A module procedure repeating its host module's 'use kinds' (GSW), with
    # a taped local and a constant of the kinds module: the generated
    # module's 'use kinds' was added twice (internal error).
    "repeated_use_kinds.f90": """\
        ! adfort: routine=top dep=y indep=x
        module kinds
          implicit none
          integer, parameter :: r8 = selected_real_kind(14, 30)
          real(r8), parameter :: half = 0.5_r8
        end module kinds
        module tb
          use kinds
          implicit none
        contains
          elemental function f(a, b)
            use kinds
            implicit none
            real(r8), intent(in) :: a, b
            real(r8) :: f
            real(r8) :: t
            t = a*b
            f = t*sin(a)*half
          end function f
        end module tb
        module drv
        contains
          subroutine top(x, y)
            use tb, only: f
            use kinds, only: r8
            real(r8), intent(in) :: x
            real(r8), intent(out) :: y
            y = f(x, 2.0_r8)
          end subroutine top
        end module drv
        """,
    # A local alias of an imported kind in literals (NCAR ccpp's
    # 'kp = kind_phys', '5.0_kp'), in a parameter's value, kind and in the
    # body: the alias was dropped as unused (internal error; in the body,
    # '5.0_kp' did not compile).
    "kind_alias_literals.f90": """\
        ! adfort: routine=s dep=y indep=x
        module machine
          implicit none
          integer, parameter :: kind_phys = selected_real_kind(13, 60)
        end module machine
        module m
          use machine, only: kind_phys
          implicit none
        contains
          subroutine s(x, y)
            integer, parameter :: kp = kind_phys
            integer, parameter :: kq = kind_phys
            real(kind=kind_phys), intent(in) :: x
            real(kind=kind_phys), intent(out) :: y
            real(kind=kind_phys), parameter :: alpha = 5.0_kp, one = 1.0_kp
            real(kind=kp), parameter :: beta = 0.25_kp
            real(kind=kp) :: t
            t = beta*x*x
            y = alpha*x*t + one + 2.0_kq*sin(x)
          end subroutine s
        end module m
        """,
    # The kind of another module's constant in a literal of the adjoint
    # (ICON's mo_satad: 'c*t/(t - d)' gives '1.0_wp'), public ('wp' was not
    # imported) or private to that module ('rk' was imported): neither
    # compiled.
    "foreign_literal_kinds.f90": """\
        ! adfort: routine=s dep=y indep=t
        module consts
          implicit none
          integer, parameter :: wp = selected_real_kind(12)
          real(wp), parameter :: c = 17.27_wp, d = 35.86_wp
        end module consts
        module consts2
          implicit none
          private
          integer, parameter :: rk = selected_real_kind(12)
          real(rk), parameter, public :: e = 243.5_rk
        end module consts2
        module m
          use consts, only: c, d
          use consts2
          implicit none
        contains
          subroutine s(t, y)
            real(8), intent(in) :: t
            real(8), intent(out) :: y
            y = c*t/(t - d) + e*t/(t + e)
          end subroutine s
        end module m
        """,
    # A module variable whose kind is private to its module, saved around
    # a call (CESM's shr_sat: 'private', 'integer, parameter :: r8'): the
    # generated module imported 'r8' from it, which did not compile.
    "private_module_kind.f90": """\
        ! adfort: routine=d dep=es indep=t
        ! adfort: init t=280:300
        module sat
          implicit none
          private
          integer, parameter :: r8 = selected_real_kind(12)
          real(r8), public :: tboil = 373.16_r8
          public :: qs, setb
        contains
          subroutine setb(b)
            real(r8), intent(in) :: b
            tboil = b
          end subroutine setb
          subroutine qs(t, es)
            real(r8), intent(in) :: t
            real(r8), intent(out) :: es
            es = 10._r8**(-7.90298_r8*(tboil/t - 1._r8))
          end subroutine qs
        end module sat
        module drv
          use sat
          implicit none
        contains
          subroutine d(t, es)
            real(8), intent(in) :: t
            real(8), intent(out) :: es
            call setb(373.16d0)
            call qs(t, es)
          end subroutine d
        end module drv
        """,
    # Module constants and variables imported under other names (ICON's
    # 'use mo_physical_constants, only: lwd => alv'), an array among them,
    # with a local of the original's name: 'the type of lwd is unknown'.
    "use_renames.f90": """\
        ! adfort: routine=s dep=y indep=t
        ! adfort: shape t=3 y=3
        module consts
          implicit none
          real(8), parameter :: alv = 2.5d0
          real(8) :: fac = 1.5d0
          real(8) :: w(3) = (/ 1d0, 2d0, 3d0 /)
        end module consts
        module m
          use consts, only: lwd => alv, factor => fac, weights => w
          implicit none
        contains
          subroutine s(t, y)
            real(8), intent(in) :: t(:)
            real(8), intent(out) :: y(:)
            real(8) :: alv
            integer :: i
            alv = 2d0
            do i = 1, size(t)
              y(i) = lwd*t(i)*factor*weights(i) + alv*sin(t(i))
            end do
          end subroutine s
        end module m
        """,
    # A module without IMPLICIT NONE using a kinds module without ONLY (GSW,
    # MOM): its function's 'real (r8)' and the module variable 'scale' come
    # from the module, 'i' is typed implicitly.  r8 was declared a real
    # (cannot parse: 'r8' used as a kind parameter).
    "implicit_module_kinds.f90": """\
        ! adfort: routine=f dep=f indep=a
        module kinds
        implicit none
        integer, parameter :: r8 = selected_real_kind(14,30)
        real(r8) :: scale = 2.0_r8
        end module
        module tb
        use kinds
        contains
        function f(a)
        real (r8), intent(in) :: a
        real (r8) :: f
        f = 0
        do i = 1, 2
          f = f + a*a*scale*i
        end do
        end function
        end module tb
        """,
    # The kind comes from a types module the routine's module uses whole
    # (and so exports): m_ad, which uses the module whole, sees it; a copy
    # of the kind beside it clashed (a nested derived type gave the tape
    # that kind).
    # The kind comes from the routine's own wildcard use while its module
    # uses another module whole: it must be declared in m_ad (it is not
    # what `use mk` brings).
    "kind_from_the_routine_s_own_use.f90": """\
        ! adfort: routine=run dep=y indep=x
        ! adfort: init n=4 x=0.5:1.5
        module kinds_k
          implicit none
          integer, parameter :: wp = kind(1.0d0)
        end module kinds_k
        module other_k
          implicit none
          integer, parameter :: nlev = 3
        end module other_k
        module mk
          use other_k
          implicit none
        contains
          subroutine run(n, x, y)
            use kinds_k
            integer, intent(in) :: n
            real(wp), intent(in) :: x(n)
            real(wp), intent(out) :: y
            real(wp) :: w(n)
            integer :: i
            w = x
            do i = 1, n
              w(i) = sin(w(i))*nlev
            end do
            y = sum(w**2)
          end subroutine run
        end module mk
        """,
    "kind_through_a_wildcard_use.f90": """\
        ! adfort: routine=run dep=y indep=x
        ! adfort: init n=4 x=0.5:1.5
        module m8_types
          implicit none
          integer, parameter :: wp = kind(1.0d0)
          type :: atm_t
            real(wp), allocatable :: t(:)
          end type atm_t
          type :: st_t
            type(atm_t) :: atm
          end type st_t
        end module m8_types
        module m8
          use m8_types
          implicit none
        contains
          subroutine run(n, x, y)
            integer, intent(in) :: n
            real(wp), intent(in) :: x(n)
            real(wp), intent(out) :: y
            type(st_t) :: s
            integer :: i
            allocate(s%atm%t(n))
            s%atm%t = x
            do i = 1, n
              s%atm%t(i) = sin(s%atm%t(i))
            end do
            y = sum(s%atm%t**2)
            deallocate(s%atm%t)
          end subroutine run
        end module m8
        """,
}


@needs_gfortran
@pytest.mark.parametrize("schedule", SCHEDULES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_module_kinds_match_finite_differences(tmp_path, name, schedule):
    harness.check_source(tmp_path, name, CASES[name], schedule)


def test_renamed_active_module_variable_is_refused(tmp_path):
    """A module variable carrying derivatives used under another name: its
    adjoint is known by the module's name only, so this is an error naming
    both (never a silently missing derivative)."""
    from adfort.api import differentiate_file
    from adfort.errors import AdfortError
    from adfort.schedules import SplitReversalSchedule
    path = tmp_path / "r.f90"
    path.write_text(textwrap.dedent(CASES["use_renames.f90"]))
    with pytest.raises(AdfortError) as err:
        differentiate_file(str(path), ["y"], ["t", "consts::fac"], SplitReversalSchedule())
    assert "'consts::fac'" in err.value.message and "'factor'" in err.value.message
    assert err.value.location == f"{path}:13"  # the routine


def test_names_a_use_may_bring_are_not_typed_implicitly(tmp_path):
    """Without IMPLICIT NONE, a module procedure sees its host's USEs: the
    names a module adfort sees declares are left to it (here and under a
    USE of its own), other names are typed; under a USE of a module adfort
    cannot see, only those that cannot come from it."""
    from adfort.frontend import read_file
    from psyclone.psyir.nodes import Routine
    path = tmp_path / "m.f90"
    path.write_text(textwrap.dedent("""\
        module kinds
          integer, parameter :: r8 = selected_real_kind(14, 30)
          real(r8) :: scale = 2.0_r8
        end module kinds
        module tb
          use kinds
        contains
          function f(a)
            real(r8) :: a, f
            f = a*scale
            do i = 1, 2
              f = f + q
            end do
          end function f
        end module tb
        module tc
          use unseen
        contains
          subroutine g(a, b)
            b = a*w
          end subroutine g
        end module tc
        subroutine h(a, b)
          use kinds
          b = a*scale + n
        end subroutine h
        """))
    tree = read_file(str(path))
    # (names declared in each routine; the others PSyclone keeps unresolved)
    tables = {r.name.lower(): {s.name.lower() for s in r.symbol_table.symbols
                               if not s.is_unresolved} for r in tree.walk(Routine)}
    assert {"i", "q"} <= tables["f"] and not {"r8", "scale"} & tables["f"]
    assert {"a", "b"} <= tables["g"] and "w" not in tables["g"]
    assert {"a", "b", "n"} <= tables["h"] and "scale" not in tables["h"]


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_names_from_a_module_adfort_cannot_see(schedule, tmp_path):
    """The module uses omp_lib whole (no source for adfort): the generated
    module took only the kind from it (``use sq_mod, only: dp``), and the
    routines' call of omp_get_max_threads had no declaration (did not
    compile)."""
    harness.check_source(tmp_path, "k.f90", """\
        ! adfort: routine=sq_timed dep=y indep=x
        ! adfort: fflags=-fopenmp
        ! adfort: init n=4 x=0.5:1.5 y=0 nthr=0
        module sq_mod
          use omp_lib
          implicit none
          integer, parameter :: dp = kind(1.0d0)
        contains
          subroutine sq_timed(n, x, y, nthr)
            integer, intent(in) :: n
            real(dp), intent(inout) :: x(n)
            real(dp), intent(out) :: y
            integer, intent(out) :: nthr
            nthr = min(omp_get_max_threads(), 1)
            x = x**2
            y = sum(x**2)
          end subroutine sq_timed
        end module sq_mod
        """, schedule)
