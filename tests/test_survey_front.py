"""Front-end and module-handling gaps met running adfort on unedited
atmosphere, ocean and land model code (ICON, CESM/CTSM, WRF, MPAS): each
case is checked against finite differences under both schedules (a small
source with ``adfort:`` metadata, as the fixtures), or, for the command
line, its behaviour and messages."""

import shutil

import pytest

import harness
from test_cli import assert_clean_failure, run

needs_gfortran = pytest.mark.skipif(shutil.which("gfortran") is None, reason="no gfortran")
SCHEDULES = ["split", "joint"]




CASES = {
    # ICON mo_satad: constants seen through a wildcard USE of the module,
    # read by a private function the joint motions run as it is (its copy
    # in the generated module kept them as unresolved names of its own,
    # hiding the module's import of them: internal error).
    "joint_wildcard_private_callee.f90": """\
        ! adfort: routine=satad dep=te,qv indep=te,qv,rho
        ! adfort: init n=3 te=270:300 qv=0.004:0.025 rho=0.9:1.2
        module kinds
          implicit none
          integer, parameter :: wp = selected_real_kind(12, 307)
        end module kinds
        module physical_constants
          use kinds, only: wp
          implicit none
          real(wp), parameter :: rv = 461.51_wp, tmelt = 273.15_wp
        end module physical_constants
        module probe_names
          use kinds, only: wp
          use physical_constants
          implicit none
          real(wp), parameter :: r_v = rv, b4w = 35.86_wp, &
                                 b234w = 17.269_wp*(tmelt - b4w)
        end module probe_names
        module satad_mod
          use kinds, only: wp
          use probe_names
          implicit none
          private
          public :: satad, qsat
        contains
          subroutine satad(n, te, qv, rho)
            integer, intent(in) :: n
            real(wp), intent(inout) :: te(n), qv(n)
            real(wp), intent(in) :: rho(n)
            integer :: i, it
            real(wp) :: q, dq
            do i = 1, n
              do it = 1, 3
                q = qsat(te(i), rho(i))
                dq = dqsatdt(q, te(i))
                te(i) = te(i) - 0.1_wp*(q - qv(i))/(1.0_wp + dq)
              end do
              qv(i) = qsat(te(i), rho(i))
            end do
          end subroutine satad
          function qsat(temp, rhotot)
            real(wp) :: qsat
            real(wp), intent(in) :: temp, rhotot
            qsat = 610.78_wp*exp(17.269_wp*(temp - tmelt)/(temp - b4w))/(rhotot*r_v*temp)
          end function qsat
          function dqsatdt(zqsat, temp)
            real(wp) :: dqsatdt
            real(wp), intent(in) :: zqsat, temp
            dqsatdt = (b234w/(temp - b4w)**2 - 1.0_wp/temp)*zqsat
          end function dqsatdt
        end module satad_mod
        """,
    # The same through an internal procedure (hoisted into the module).
    "joint_wildcard_internal_callee.f90": """\
        ! adfort: routine=top dep=y indep=x
        module consts
          implicit none
          real(8), parameter :: r_v = 461.5d0, b4 = 35.86d0
        end module consts
        module m
          use consts
          implicit none
          private
          public :: top, g
        contains
          subroutine top(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            y = f(x)*g(x)
          contains
            function f(t)
              real(8) :: f
              real(8), intent(in) :: t
              f = sin(t)/r_v
            end function f
          end subroutine top
          function g(t)
            real(8) :: g
            real(8), intent(in) :: t
            g = t*b4
          end function g
        end module m
        """,
    # CTSM's 'type(column_type), public, target :: col' read through USE
    # ONLY (and an array of that type, a real, with TARGET): PSyclone keeps
    # a TARGET declaration as text, and the fence took the type of 'col'
    # for unknown.
    "used_module_target_derived.f90": """\
        ! adfort: routine=sq dep=y indep=x
        ! adfort: init x=0.5:1.5
        module ctype
          implicit none
          type column_type
             integer :: itype(3) = (/1, 2, 1/)
             real(8) :: wt(3) = (/0.5d0, 0.25d0, 0.25d0/)
          end type column_type
          type(column_type), public, target :: col
          type(column_type), target :: cols(2)
          real(8), target :: scale_t = 2.0d0
        end module ctype
        module m
          use ctype, only : col
        contains
          subroutine sq(x, y)
            use ctype, only : cols, scale_t
            real(8), intent(in) :: x(3)
            real(8), intent(out) :: y
            integer :: ci
            y = 0
            do ci = 1, 3
              if (col%itype(ci) == 1) then
                y = y + col%wt(ci)*x(ci)**2*cols(2)%wt(ci)
              else
                y = y + x(ci)*scale_t
              end if
            end do
          end subroutine sq
        end module m
        """,
    # The same read by a routine of the module declaring it.
    "module_target_derived.f90": """\
        ! adfort: routine=sq dep=y indep=x
        module ctype
          implicit none
          type column_type
             integer :: itype(3) = (/1, 2, 1/)
             real(8) :: wt(3) = (/0.5d0, 0.25d0, 0.25d0/)
          end type column_type
          type(column_type), public, target :: col
        contains
          subroutine sq(x, y)
            real(8), intent(in) :: x(3)
            real(8), intent(out) :: y
            integer :: ci
            y = 0
            do ci = 1, 3
              if (col%itype(ci) == 1) y = y + col%wt(ci)*x(ci)**2
            end do
          end subroutine sq
        end module ctype
        """,
    # CESM's assert macros: call shr_assert_all(cond, file=__FILE__,
    # line=__LINE__) leaves out the optional 'msg' before the arguments it
    # names, through a generic interface; a passive call kept as it is (it
    # was refused: adfort passed arguments by position).  'sourcefile', a
    # constant of the module, hidden as unresolved by the routine's
    # wildcard USE, was 'of unknown type'.
    "optional_skip_passive_generic.f90": """\
        ! adfort: routine=sq dep=y indep=x
        ! adfort: init n=3
        ! adfort: shape x=n y=n
        module chk
          interface check_all
            module procedure check_all_1d
          end interface
        contains
          subroutine check_all_1d(var, msg, file, line)
            logical, intent(in) :: var(:)
            character(len=*), intent(in), optional :: msg, file
            integer, intent(in), optional :: line
            if (.not. all(var)) then
              if (present(msg)) print *, msg
              if (present(file) .and. present(line)) print *, file, line
              stop 'check'
            end if
          end subroutine check_all_1d
        end module chk
        module m
          character(len=*), parameter, private :: sourcefile = "m.f90"
        contains
          subroutine sq(n, x, y)
            use chk
            integer, intent(in) :: n
            real(8), intent(in) :: x(:)
            real(8), intent(out) :: y(:)
            call check_all((ubound(x) == (/n/)), file=sourcefile, line=20)
            y = x*x
          end subroutine sq
        end module m
        """,
    # Active calls naming arguments after one left out, in any order, and
    # functions: the generated calls pass them (and their adjoints, the
    # result) by keyword.
    "optional_skip_active.f90": """\
        ! adfort: routine=top dep=y,z indep=x,w
        module ops
          implicit none
        contains
          subroutine axpy(x, y, offset, factor, count)
            real(8), intent(in) :: x
            real(8), intent(inout) :: y
            real(8), intent(in), optional :: offset, factor
            integer, intent(inout), optional :: count
            real(8) :: a
            a = 1.0d0
            if (present(factor)) a = factor
            y = y + a*sin(x)
            if (present(offset)) y = y + offset
            if (present(count)) count = count + 1
          end subroutine axpy
          function g(x, b, c) result(r)
            real(8), intent(in) :: x
            real(8), intent(in), optional :: b, c
            real(8) :: r
            r = x**2
            if (present(b)) r = r + b
            if (present(c)) r = r*c
          end function g
        end module ops
        module m
          use ops
          implicit none
        contains
          subroutine top(x, w, y, z)
            real(8), intent(in) :: x, w
            real(8), intent(inout) :: y
            real(8), intent(out) :: z
            integer :: k
            k = 0
            call axpy(x, y, factor=w, count=k)
            call axpy(w, y, count=k, factor=x*w)
            z = g(x, c=w) + k
            z = z + g(w, c=2.0d0)*g(x)
          end subroutine top
        end module m
        """,
    # A routine declared passive called with its arguments out of order:
    # the active 't' it overwrites was paired with the wrong dummy, its
    # adjoint not cleared (a wrong gradient).
    "passive_keywords_out_of_order.f90": """\
        ! adfort: routine=top dep=y indep=x
        module m
          implicit none
        contains
          subroutine reset(v, flag)
            real(8), intent(out) :: v
            logical, intent(in) :: flag
            v = 0
            if (flag) v = 1.5d0
          end subroutine reset
          subroutine top(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            real(8) :: t
            t = sin(x)
            !$adfort passive
            call reset(flag=.true., v=t)
            y = t*x
          end subroutine top
        end module m
        """,
    # WRF's and MPAS's .F files are free form (their Makefiles pass
    # -ffree-form): code from column 1, '&' continuations.  adfort read
    # every .F as fixed form ('Fortran syntax error').  Without
    # --free-form, text only free form can mean is read so.
    "dotF_free_form.F": """\
        ! adfort: routine=s dep=y indep=t
        ! adfort: fflags=-ffree-form
        MODULE m
        CONTAINS
           SUBROUTINE s( t,                                             &
                         y )
           REAL(8), INTENT(IN) :: t
           REAL(8), INTENT(OUT) :: y
        #ifdef NEVER
           y = 0.
        #else
           y = 2.*t*t + SIN(t)
        #endif
           END SUBROUTINE s
        END MODULE m
        """,
    # A module without IMPLICIT NONE using another without ONLY: the names
    # its routines take from there by host association were given implicit
    # types ('col' a REAL: 'cannot parse the file: A StructureReference
    # must refer to a symbol that is ... a structure').
    "host_wildcard_use_implicit.f90": """\
        ! adfort: routine=sq dep=y indep=x
        module ctype
          implicit none
          type column_type
             integer :: itype(3) = (/1, 2, 1/)
             real(8) :: wt(3) = (/0.5d0, 0.25d0, 0.25d0/)
          end type column_type
          type(column_type), public, target :: col
          real(8) :: scale = 2.0d0
        end module ctype
        module m
          use ctype
        contains
          subroutine sq(x, y)
            real(8), intent(in) :: x(3)
            real(8), intent(out) :: y
            integer :: ci
            y = 0
            do ci = 1, 3
              if (col%itype(ci) == 1) y = y + col%wt(ci)*x(ci)**2*scale
            end do
          end subroutine sq
        end module m
        """,
    # Derived-type module variables (one TARGET, one allocatable) that a
    # callee sets: r_rev keeps their values around the returning motion in
    # copies, which were declared with a copy of the type's definition
    # ('Cannot convert TYPE(column_type) to TYPE(column_type)') or with the
    # TARGET declaration's text under the variable's own name.
    "module_derived_written_by_callee.f90": """\
        ! adfort: routine=sq dep=y indep=x
        ! adfort: init x=0.5:1.5
        module ctype
          implicit none
          type column_type
             integer :: itype(3) = (/1, 2, 1/)
             real(8) :: wt(3) = (/0.5d0, 0.25d0, 0.25d0/)
          end type column_type
          type(column_type), public, target :: col
          type(column_type), allocatable :: cols(:)
        contains
          subroutine init_col()
            col%itype = (/1, 2, 1/)
            col%wt = (/0.5d0, 0.25d0, 0.25d0/)
            if (.not. allocated(cols)) allocate(cols(2))
            cols(2)%wt = 3.0d0
          end subroutine init_col
        end module ctype
        module m
          use ctype, only : col, cols, init_col
        contains
          subroutine sq(x, y)
            real(8), intent(in) :: x(3)
            real(8), intent(out) :: y
            integer :: ci
            call init_col()
            y = 0
            do ci = 1, 3
              if (col%itype(ci) == 1) y = y + col%wt(ci)*x(ci)**2*cols(2)%wt(ci)
            end do
          end subroutine sq
        end module m
        """,
}


@needs_gfortran
@pytest.mark.parametrize("schedule", SCHEDULES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_survey_idiom_matches_finite_differences(tmp_path, name, schedule):
    harness.check_source(tmp_path, name, CASES[name], schedule)


# Free-form code that a fixed-form read does not reject outright: indented
# six columns, one line running past column 72 (fixed form drops the rest).
WIDE = (
    "      module m\n      contains\n      subroutine s(t, y)\n"
    "      real(8), intent(in) :: t\n      real(8), intent(out) :: y\n"
    "      y = 2.*t*t + 3.*t*t*t + 4.*t*t*t*t + 5.*t*t*t*t*t + (6.*t*t*t*t*t*t)\n"
    "      end subroutine s\n      end module m\n")


def test_free_form_dot_F_needs_free_form_when_unsure(tmp_path):
    """A .F file that only looks free form fails as fixed form, with a
    message saying how to read it; --free-form reads it."""
    src = tmp_path / "wide.F"
    src.write_text(WIDE)
    result = run(["diff", str(src), "--dep", "y", "--indep", "t"], tmp_path)
    assert_clean_failure(result, tmp_path, "wide.F:6:", "looks like free-form source",
                         "code beyond column 72 at", "pass --free-form")
    result = run(["diff", str(src), "--dep", "y", "--indep", "t", "--free-form"], tmp_path)
    assert result.returncode == 0, result.stderr
    # The whole line, columns 73 on included.
    assert "(6. * t * t * t * t * t * t)" in (tmp_path / "wide_ad.f90").read_text()


def test_fixed_form_option_overrides_the_suffix(tmp_path):
    """--fixed-form reads a .f90 file as fixed form (card columns, C
    comments); by its suffix it is free form and rejected."""
    src = tmp_path / "old.f90"
    src.write_text("C     an F77 routine kept in a .f90 file\n"
                   "      SUBROUTINE S(T, Y)\n      REAL*8 T, Y\n"
                   "      Y = T*T +\n     &    T\n      END\n")
    result = run(["diff", str(src), "--dep", "y", "--indep", "t"], tmp_path)
    assert_clean_failure(result, tmp_path, "old.f90:")
    result = run(["diff", str(src), "--dep", "y", "--indep", "t", "--fixed-form",
                  "-o", "-"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "subroutine s_rev(t, t_adj, y, y_adj)" in result.stdout.lower()
    assert "y = t * t + t" in result.stdout.lower()


def test_free_and_fixed_form_exclude_each_other(tmp_path):
    src = tmp_path / "wide.F"
    src.write_text(WIDE)
    result = run(["diff", str(src), "--dep", "y", "--indep", "t", "--free-form",
                  "--fixed-form"], tmp_path)
    assert_clean_failure(result, tmp_path, "--free-form and --fixed-form exclude each other")


def test_free_form_evidence_is_decisive_only_where_fixed_form_fails():
    """Valid fixed form never counts as free form: labels (with blanks),
    comments in column 1, debug lines, continuation marks in column 6, an
    '&' in column 73 (code written for both forms), sequence numbers."""
    from adfort.reading import free_form_evidence
    fixed = ("C comment\n* comment\nd    print *, x\n   10 CONTINUE\n 1 0  x = 1\n"
             "      x = a +\n     &    b\n" + "      x = 1" + " " * 61 + "&\n"
             + "     &  + 2\n" + "      y = 1" + " " * 61 + "SEQ00010\n"
             "      s = 'a & b'\n\tx = 1\n")
    assert free_form_evidence(fixed) is None
    assert free_form_evidence("module m\n") == (1, "code in columns 1-5")
    assert free_form_evidence("      call f(a, &\n           b)\n")[0] == 1
    assert free_form_evidence("      y = 1" + " " * 61 + "xyz\n") is None
    assert free_form_evidence("      y = 1" + " " * 61 + "xyz\n", decisive=False)[0] == 1
