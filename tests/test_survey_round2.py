"""Gaps met in the second survey of unedited model code (SPEEDY, ecRad,
WAVEWATCH III, NEMO, GFDL/FV3, CICE, Noah-MP, MINPACK, LINPACK, ODE and
optimisation libraries): each case is a small source with ``adfort:``
metadata checked against finite differences under both schedules, or,
for messages, a command-line check."""

import os
import shutil
import subprocess
import sys

import pytest

import harness
from test_cli import assert_clean_failure


def run(args, cwd):
    """The command line of this checkout (``python -m adfort`` run from
    another directory would import the installed package)."""
    env = dict(os.environ, PYTHONPATH=str(harness.REPO_ROOT))
    return subprocess.run([sys.executable, "-m", "adfort"] + args, cwd=cwd,
                          capture_output=True, text=True, env=env)

needs_gfortran = pytest.mark.skipif(shutil.which("gfortran") is None, reason="no gfortran")
SCHEDULES = ["split", "joint"]


CASES = {
    # ecRad's aerosol optics: associate(mext => mext_phobic(:, js)) of a
    # table, and a section of an output, used whole in the block: refused.
    "associate_sections.f90": """\
        ! adfort: routine=column dep=od,sca indep=mmr
        ! adfort: init nlev=4 mmr=0.5:1.5 od=0 sca=0
        module aer
          implicit none
          integer, parameter :: jprb = selected_real_kind(13, 300)
          integer, parameter :: nspecies = 3, nband = 2
          real(jprb) :: mext_phobic(nband, nspecies), ssa_phobic(nband, nspecies)
          data mext_phobic / 3.2_jprb, 1.1_jprb, 0.45_jprb, 0.42_jprb, 2.1_jprb, 1.9_jprb /
          data ssa_phobic / 0.92_jprb, 0.85_jprb, 0.96_jprb, 0.95_jprb, 0.25_jprb, 0.15_jprb /
        contains
          subroutine column(nlev, mmr, od, sca)
            integer, intent(in) :: nlev
            real(jprb), intent(in) :: mmr(nlev, nspecies)
            real(jprb), intent(out) :: od(nband, nlev), sca(nband, nlev)
            integer :: jl, js
            od = 0
            sca = 0
            do jl = 1, nlev
              do js = 1, nspecies
                associate(mext => mext_phobic(:, js), w0 => ssa_phobic(:, js), &
                          odl => od(:, jl), first => mmr(jl, 1))
                  odl = odl + mmr(jl, js)**2*mext + first
                  sca(:, jl) = sca(:, jl) + mmr(jl, js)*mext*w0*first
                end associate
              end do
            end do
          end subroutine column
        end module aer
        """,
    # SPEEDY phy_lscond.f: COMMON /FSIGLT/ SIG(NLEV) with
    # PARAMETER (NLEV=KX) and KX a PARAMETER of an included header: the
    # generated COMMON layout module declared NLEV but not KX (internal
    # error: 'kx' neither declared nor imported).
    "common_bound_parameter_chain.f": """\
        C adfort: routine=lsc dep=pr indep=qa
        C adfort: init pr=0:1 qa=0.5:1.5
        C adfort: fflags=-fdefault-real-8 -fdefault-double-8
              BLOCK DATA SIGDAT
              PARAMETER ( IX = 3, KX = 4 )
              PARAMETER ( NLEV=KX, NGP=IX )
              COMMON /FSIGLT/ SIG(NLEV), DSIG(NLEV)
              DATA SIG / 0.1, 0.4, 0.7, 0.95 /
              DATA DSIG / 0.2, 0.3, 0.3, 0.2 /
              END
              SUBROUTINE LSC (QA,PR)
              PARAMETER ( IX = 3, KX = 4 )
              PARAMETER ( NLEV=KX, NGP=IX )
              COMMON /FSIGLT/ SIG(NLEV), DSIG(NLEV)
              REAL QA(NGP,NLEV), PR(NGP)
              DO K=1,NLEV
                DO J=1,NGP
                  PR(J) = PR(J) + SIG(K)*DSIG(K)*QA(J,K)**2
                ENDDO
              ENDDO
              END
        """,
    # Noah-MP (SoilWaterSupercoolKoren99Mod.F90) and CTSM open their
    # routines with ASSOCIATE blocks naming derived-type components: it was
    # refused.  Nested constructs, a name assigned through, a keyword
    # argument spelled like an associate name, a component named so.
    "associate_components.f90": """\
        ! adfort: routine=top dep=y,z indep=x
        ! adfort: init n=4 x=0.5:1.5
        module types
          implicit none
          type :: par_t
            real(8) :: b(4), c
            real(8) :: scale
          end type par_t
          type :: state_t
            type(par_t) :: par
            real(8) :: acc(4)
          end type state_t
        end module types
        module m
          use types
          implicit none
        contains
          subroutine scaled(v, scale, w)
            real(8), intent(in) :: v, scale
            real(8), intent(out) :: w
            w = scale*v
          end subroutine scaled
          subroutine top(n, x, y, z)
            integer, intent(in) :: n
            real(8), intent(in) :: x(n)
            real(8), intent(out) :: y(n), z
            type(state_t) :: st
            integer :: i
            real(8) :: w
            st%par%b = (/ 1.5d0, 2.0d0, 2.5d0, 3.0d0 /)
            st%par%c = 0.25d0
            st%par%scale = 2.0d0
            associate(b => st%par%b, acc => st%acc, &
                      c => st%par%c)   ! comment with b and acc
              acc = 0.0d0
              outer: associate (par => st%par)
                do i = 1, n
                  call scaled(x(i)**b(i), scale=par%scale, w=w)
                  acc(i) = acc(i) + w*c
                  y(i) = acc(i)*x(i)
                end do
              end associate outer
              z = sum(acc)
            end associate
          end subroutine top
        end module m
        """,
    # A default-real literal leading an expression of another kind: the
    # partial of x**2.0 took 1.0 and 0.0 (default kind) for MERGE's
    # arguments next to real(8) values (generated code did not compile).
    "pow_real_exponent_mixed_kind.f90": """\
        ! adfort: routine=f dep=y indep=x
        ! adfort: init x=0.5:1.5
        module m
          implicit none
          integer, parameter :: rk = 8
          real(kind=rk), parameter :: ck = 8.0
        contains
          subroutine f(x, y)
            real(kind=rk), intent(in) :: x
            real(kind=rk), intent(out) :: y
            y = ((1.0 + ck*x)**2.0) * (0.5/x)**1.5
          end subroutine f
        end module m
        """,
    # A local of a derived type whose allocatable components the routine
    # allocates and fills, given to a callee (a Noah-MP driver's
    # noahmp%water%param%…): the returning motion read them unallocated and
    # "deallocated" the variable itself (did not compile).
    "local_type_allocatable_components.f90": """\
        ! adfort: routine=drv dep=y indep=x
        ! adfort: init x=0.5:1.5
        module types
          implicit none
          type :: par_t
            real(8), allocatable :: c(:)
          end type par_t
          type :: model_t
            type(par_t) :: par
            integer, allocatable :: idx(:)
          end type model_t
        end module types
        module m
          use types
          implicit none
        contains
          subroutine callee(p, x, y)
            type(model_t), intent(inout) :: p
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            y = p%par%c(p%idx(2))*x**2 + sin(p%par%c(3)*x)
            p%idx(1) = 1
          end subroutine callee
          subroutine drv(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            type(model_t) :: p
            allocate(p%par%c(3), p%idx(2))
            p%par%c = (/ 1d0, 2d0, 3d0 /)
            p%idx = (/ 3, 2 /)
            call callee(p, x, y)
            y = y + p%par%c(p%idx(1))*x
            deallocate(p%idx)
          end subroutine drv
        end module m
        """,
    # NEMO 4.2 eos_fzp_2d_t: REAL(wp), DIMENSION(A2D_T(kttf)) is an
    # assumed-shape dummy with lower bounds, ``(ntsi-nn_hls-1)*kttf+1:``;
    # r_rev's copy of it (an intent(out) dependent) was declared with that
    # spec, not allocatable (did not compile).
    "assumed_shape_lower_bounds.f90": """\
        ! adfort: routine=fzp dep=ptf indep=psal
        ! adfort: init n=4 m=3 kttf=0 psal=30:38
        ! adfort: shape ptf=n,m
        module fzp_mod
          implicit none
          integer, parameter :: wp = kind(1.0d0)
          integer :: ntsi = 2, nn_hls = 1
        contains
          subroutine fzp(n, m, psal, ptf, kttf)
            integer, intent(in) :: n, m, kttf
            real(wp), intent(in) :: psal(n, m)
            real(wp), dimension((ntsi-nn_hls-1)*kttf+1:, 0*kttf+1:), intent(out) :: ptf
            integer :: ji, jj
            do jj = 1, m
              do ji = 1, n
                ptf(ji, jj) = sqrt(psal(ji, jj))*psal(ji, jj)*1.0e-3_wp
              end do
            end do
            ptf(:, :) = ptf(:, :) - 0.0575_wp*psal(:, :)
          end subroutine fzp
        end module fzp_mod
        """,
    # A dummy argument named like its module (MINPACK's 'm' in a module
    # m), with a kind from the module: the generated routines tried to
    # USE m inside a scope where m is the dummy (internal error).
    "dummy_named_like_module.f90": """\
        ! adfort: routine=resid dep=f indep=x
        ! adfort: init m=3 x=0.5:1.5
        module m
          implicit none
          integer, parameter :: wp = kind(1.0d0)
        contains
          subroutine resid(m, x, f)
            integer, intent(in) :: m
            real(wp), intent(in) :: x(m)
            real(wp), intent(out) :: f(m)
            f = x**2*m - 1.0_wp
          end subroutine resid
        end module m
        """,
    # RTE (RRTMGP) lw_source_noscat: a named constant whose value inquires
    # about a dummy, ``parameter :: tau_thresh = sqrt(epsilon(tau))``, was
    # declared before the dummy (did not compile).
    "parameter_inquiring_dummy.f90": """\
        ! adfort: routine=src dep=s indep=tau,t
        ! adfort: init ncol=3 tau=0.00000001:2 t=0.1:0.9
        module kern
          use, intrinsic :: iso_c_binding, only: c_double
          implicit none
          integer, parameter :: wp = c_double
        contains
          subroutine src(ncol, tau, t, s) bind(C, name="src")
            integer, intent(in) :: ncol
            real(wp), dimension(ncol), intent(in) :: tau, t
            real(wp), dimension(ncol), intent(out) :: s
            real(wp), parameter :: tau_thresh = sqrt(epsilon(tau))
            real(wp), parameter :: half = 0.5_wp*tau_thresh/tau_thresh
            integer :: i
            do i = 1, ncol
              if (tau(i) > tau_thresh) then
                s(i) = (1._wp - t(i))/tau(i) - t(i)
              else
                s(i) = tau(i)*(half - 1._wp/3._wp*tau(i))
              end if
            end do
          end subroutine src
        end module kern
        """,
    # GFS funcphys: a table a callee sets (gpvsl) read by functions
    # (fpvsl), the caller importing only the routines (use tab, only: init,
    # f): the module variables the second init overwrites, which the first
    # f's adjoint reads, were not saved (the caller cannot see their
    # names): a wrong gradient, both schedules.
    "module_variables_unseen_by_caller.f90": """\
        ! adfort: routine=d dep=y indep=t,s
        ! adfort: init t=0.5:1.5 s=0.5:1.5
        module tab
          implicit none
          real(8) :: c = 1.0d0, tb(3) = (/ 1.0d0, 2.0d0, 3.0d0 /)
        contains
          subroutine init(s)
            real(8), intent(in) :: s
            integer :: j
            c = 0.5d0*s
            do j = 1, 3
              tb(j) = j*c
            end do
          end subroutine init
          function f(t) result(r)
            real(8), intent(in) :: t
            real(8) :: r
            r = tb(2)*t**2 + c*t
          end function f
        end module tab
        module drv
          use tab, only: init, f
          implicit none
        contains
          subroutine d(t, s, y)
            real(8), intent(in) :: t, s
            real(8), intent(out) :: y
            call init(2.0d0)
            y = f(t)
            call init(s)
            y = y*f(t)
          end subroutine d
        end module drv
        """,
    # The same through a wrapper (the writes two calls deep).
    "module_variables_written_two_calls_deep.f90": """\
        ! adfort: routine=d dep=y indep=t,s
        ! adfort: init t=0.5:1.5 s=0.5:1.5
        module tab
          implicit none
          real(8), private :: unused = 0.0d0
          real(8) :: c = 1.0d0, tb(3) = (/ 1.0d0, 2.0d0, 3.0d0 /)
        contains
          subroutine init(s)
            real(8), intent(in) :: s
            integer :: j
            c = 0.5d0*s
            do j = 1, 3
              tb(j) = j*c
            end do
          end subroutine init
          function f(t) result(r)
            real(8), intent(in) :: t
            real(8) :: r
            r = tb(2)*t**2 + c*t
          end function f
        end module tab
        module setup_mod
          use tab, only: init
          implicit none
        contains
          subroutine setup(s, w)
            real(8), intent(in) :: s
            real(8), intent(inout) :: w
            call init(s*w)
            w = w + s
          end subroutine setup
        end module setup_mod
        module drv
          use tab, only: f
          use setup_mod, only: setup
          implicit none
        contains
          subroutine d(t, s, y)
            real(8), intent(in) :: t, s
            real(8), intent(out) :: y
            real(8) :: w
            w = 2.0d0
            call setup(1.0d0, w)
            y = f(t)
            call setup(s, w)
            y = y*f(t)*w
          end subroutine d
        end module drv
        """,
    # netlib rkf45 FEHL: labelled DO loops whose terminal statement is an
    # assignment continued over lines (``224 f5(k)=…+`` / ``1 (…)``): END DO
    # was put on its first line (syntax error); and the dummy procedure f is
    # only CALLed, F77 needing no EXTERNAL: it was typed real (PSyclone
    # error on the whole file).  The driver passes its routine by name.
    "f77_dummy_procedure_continued_do_end.f": """\
        C adfort: routine=drv dep=s indep=y,h
        C adfort: init neqn=2 y=0.5:1.5 t=0.1 h=0.05:0.2
              subroutine rhs(t, y, yp)
              double precision t, y(2), yp(2)
              yp(1) = y(1)*(1.5d0 - y(2)) + 0.1d0*t
              yp(2) = y(2)*(y(1) - 3.0d0)
              return
              end
              subroutine drv(neqn, y, t, h, s)
              external rhs
              integer neqn
              double precision y(neqn), t, h, s(neqn)
              double precision yp(2), f1(2), f2(2)
              call rhs(t, y, yp)
              call step(rhs, neqn, y, t, h, yp, f1, f2, s)
              return
              end
              subroutine step(f,neqn,y,t,h,yp,f1,f2,s)
              integer  neqn
              double precision  y(neqn),t,h,yp(neqn),f1(neqn),f2(neqn),
             1  s(neqn)
              double precision  ch
              integer  k
              ch=h/4.0d0
              do 221 k=1,neqn
          221   f2(k)=y(k)+ch*yp(k)
              call f(t+ch,f2,f1)
              ch=h/2.0d0
              do 230 k=1,neqn
          230   s(k)=y(k)+ch*((3.0d0*yp(k)+
             1        f1(k))+
             2        2.0d0*f2(k))
              return
              end
        """,
    # The same with a local array sized by such a constant (n2 = size(x)/2
    # with x(6)): the local came before the constant it names.
    "parameter_inquiring_dummy_sizes_local.f90": """\
        ! adfort: routine=s dep=y indep=x
        ! adfort: init x=0.5:1.5
        module m
          implicit none
        contains
          subroutine s(x, y)
            real(8), intent(in) :: x(6)
            real(8), intent(out) :: y
            integer, parameter :: n2 = size(x)/2
            real(8) :: w(n2)
            real(8), parameter :: eps = epsilon(x)
            integer :: i
            do i = 1, n2
              w(i) = x(i)*x(i+n2) + eps
            end do
            y = sum(w**2)
          end subroutine s
        end module m
        """,
}


@needs_gfortran
@pytest.mark.parametrize("schedule", SCHEDULES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_round2_idiom_matches_finite_differences(tmp_path, name, schedule):
    harness.check_source(tmp_path, name, CASES[name], schedule)


def test_associate_with_an_expression_is_a_clear_error(tmp_path):
    """An associate name for an expression (a value fixed when the
    construct starts) is refused at its line, naming it."""
    src = tmp_path / "assoc.f90"
    src.write_text(
        "subroutine s(x, y)\n"
        "  real(8), intent(in) :: x(3)\n"
        "  real(8), intent(out) :: y\n"
        "  associate(t => 2*x(1))\n"
        "    y = t*x(2)\n"
        "  end associate\n"
        "end subroutine s\n")
    result = run(["diff", str(src), "--dep", "y", "--indep", "x"], tmp_path)
    assert_clean_failure(result, tmp_path, "assoc.f90:4:", "ASSOCIATE of 't' to '2*x(1)'",
                         "use a local variable for 't'")


@pytest.mark.parametrize("use, message", [
    ("y = t(1)*x(2)", "the block subscripts 't'"),
    ("k = k + 1; y = t*x(2)", "the block may change 'k'")])
def test_associate_with_a_section_used_otherwise_is_a_clear_error(use, message, tmp_path):
    """A section or element selector is written in place only where that is
    the section fixed when the construct starts."""
    src = tmp_path / "assoc.f90"
    src.write_text(
        "subroutine s(x, y)\n"
        "  real(8), intent(in) :: x(3, 2)\n"
        "  real(8), intent(out) :: y\n"
        "  integer :: k\n"
        "  k = 1\n"
        "  associate(t => x(:, k))\n"
        f"    {use}\n"
        "  end associate\n"
        "end subroutine s\n")
    result = run(["diff", str(src), "--dep", "y", "--indep", "x"], tmp_path)
    assert_clean_failure(result, tmp_path, "assoc.f90:7:", message,
                         "use a local variable for 't'")


def test_f77_dummy_procedure_differentiated_directly_is_a_clear_error(tmp_path):
    """A routine whose dummy procedure is only CALLed (no EXTERNAL) is
    named as taking a routine argument, at its line, as with EXTERNAL."""
    src = tmp_path / "step.f"
    src.write_text(
        "      subroutine step(f, y, s)\n"
        "      double precision y(2), s(2)\n"
        "      call f(y, s)\n"
        "      s(1) = s(1) + y(1)\n"
        "      end\n")
    result = run(["diff", str(src), "--dep", "s", "--indep", "y"], tmp_path)
    assert_clean_failure(result, tmp_path, "step.f:1:", "routine passed as an argument")


def test_associate_sharing_a_line_is_a_clear_error(tmp_path):
    """ASSOCIATE lines are blanked once their names are written out: one
    sharing its line with another statement is refused, never dropped."""
    src = tmp_path / "assoc_line.f90"
    src.write_text(
        "subroutine s(x, y)\n"
        "  real(8), intent(in) :: x(3)\n"
        "  real(8), intent(out) :: y\n"
        "  associate(t => x); y = t(1)*t(2)\n"
        "  end associate\n"
        "end subroutine s\n")
    result = run(["diff", str(src), "--dep", "y", "--indep", "x"], tmp_path)
    assert_clean_failure(result, tmp_path, "assoc_line.f90:4:", "on a line of its own")


def test_long_designators_are_wrapped_under_free_form_limit():
    """Noah-MP GroundAlbedo's adjoint: an assignment whose left side and
    first operand pass 100 columns had no break point there and was left
    300 columns long (gfortran: line truncated, then a bogus component
    error)."""
    from adfort.layout import wrap_line
    line = ("          noahmp_adj%config%domain%CosSolarZenithAngle = "
            "noahmp_adj%config%domain%CosSolarZenithAngle - "
            "noahmp_adj%energy%state%AlbedoSoilDir(indswbnd) * (0.06 / "
            "(MAX(0.01, noahmp%config%domain%CosSolarZenithAngle) ** 1.7 + 0.15) ** 2) "
            "* (1.7 * MAX(0.01, noahmp%config%domain%CosSolarZenithAngle) ** (1.7 - 1))")
    lines = wrap_line(line)
    assert len(lines) > 1
    assert all(len(part) <= 132 for part in lines)
    joined = "".join(part.rstrip(" &").strip() if i else part.rstrip(" &")
                     for i, part in enumerate(lines))
    assert joined.replace(" ", "") == line.replace(" ", "")
    very_long = "    " + "a%" * 80 + "b = 1.0"
    assert all(len(part) <= 132 for part in wrap_line(very_long))
