"""Passive constructs real model code has inside differentiated routines
(character variables, I/O, STOP, SAVE'd state, OPTIONAL arguments,
constants as actual arguments): what works is checked by the fixtures
reverse_comm_descent.f90, satvap_table_column.f90 and
calls/surface_drag_optional_args; here, the clear errors for what cannot
work, and the state SAVE'd variables hold after r_rev."""

import shutil
import subprocess
import textwrap

import pytest

from test_cli import assert_clean_failure, run

needs_gfortran = pytest.mark.skipif(shutil.which("gfortran") is None,
                                    reason="gfortran not installed")

LOOKUP = textwrap.dedent("""\
    module lookup_mod
      implicit none
    contains
      subroutine lookup(x, y, ncalls)
        real(8), intent(in) :: x
        real(8), intent(out) :: y
        integer, intent(out) :: ncalls
        logical, save :: first = .true.
        real(8), save :: tab(5)
        integer, save :: ncall = 0
        integer :: i
        ncall = ncall + 1
        if (first) then
          do i = 1, 5
            tab(i) = 1.0d0 + 0.5d0*i
          end do
          first = .false.
        end if
        y = tab(2)*x**2 + tab(4)*x
        ncalls = ncall
      end subroutine lookup
      subroutine twice(x, y)
        real(8), intent(in) :: x
        real(8), intent(out) :: y
        real(8) :: t
        integer :: n
        call lookup(x, t, n)
        y = t
        call lookup(2*x, t, n)
        y = y*t
      end subroutine twice
    end module lookup_mod
    """)


@pytest.mark.parametrize("source, args, fragments", [
    # A value read from outside carries no derivative.
    ("subroutine k(x, y)\n  real(8), intent(in) :: x\n  real(8), intent(inout) :: y\n"
     "  y = x\n  read(*, *) y\nend subroutine k\n", ["--dep", "y", "--indep", "x"],
     ["k.f90:5:", "sets the active variable 'y'"]),
    # Reading a file again in the second forward run reads other data.
    ("module m\ncontains\nsubroutine g(x, y)\n  real(8), intent(in) :: x\n"
     "  real(8), intent(inout) :: y\n  real(8) :: c\n  read(*, *) c\n  y = y + c*x\n"
     "end subroutine g\nsubroutine k(x, y)\n  real(8), intent(in) :: x\n"
     "  real(8), intent(inout) :: y\n  call g(x, y)\nend subroutine k\nend module m\n",
     ["--routine", "k", "--dep", "y", "--indep", "x", "--schedule", "joint"],
     ["k.f90:7:", "this READ would run more than once", "--link k:g=split"]),
    ("subroutine k(x, y)\n  real(8), intent(in) :: x\n  real(8), intent(inout) :: y\n"
     "  real(8) :: c\n  read(*, *) c\n  y = y + c*x\nend subroutine k\n",
     ["--dep", "y", "--indep", "x", "--jacobian"],
     ["k.f90:5:", "--jacobian reverses the routine once per row"]),
    # SAVE'd state changing what the routine computes (the call count it
    # returns), advanced twice; the table built on the first call is not
    # (a second run leaves it as it is).
    (LOOKUP, ["--routine", "lookup", "--dep", "y", "--indep", "x", "--jacobian"],
     ["k.f90:12:", "'ncall' is a SAVE'd variable of 'lookup'", "more than once per call"]),
    (LOOKUP, ["--routine", "twice", "--dep", "y", "--indep", "x", "--schedule", "joint"],
     ["'ncall' is a SAVE'd variable", "--link twice:lookup=split"]),
    ("subroutine k(x, y)\n  real(8), intent(in) :: x(4)\n  real(8), intent(out) :: y\n"
     "  real(8) :: a(4), b(4)\n  equivalence (a, b)\n  a = x\n  y = sum(b)\n"
     "end subroutine k\n", ["--dep", "y", "--indep", "x"],
     ["k.f90:5:", "EQUIVALENCE is not supported"]),
    ("subroutine k(x, y)\n  real(8), intent(in) :: x(4)\n  real(8), intent(out) :: y\n"
     "  real(8) :: a(4)\n  integer :: i\n  forall (i = 2:4) a(i) = a(i - 1) + x(i)**2\n"
     "  y = sum(a)\nend subroutine k\n", ["--dep", "y", "--indep", "x"],
     ["k.f90:6:", "FORALL reading an array it assigns"]),
    # A statement PSyclone keeps opaque in a callee that looks passive: the
    # derivative flows through it (argument -> module array), so the callee
    # is differentiated and the statement rejected, not silently dropped.
    ("module st\n  real(8) :: v(5)\nend module st\nsubroutine relax(psi)\n  use st\n"
     "  real(8) :: psi\n  integer :: i\n  forall (i = 1:4) v(i) = v(i + 1) + psi*i\n"
     "end subroutine relax\nsubroutine k(x, y)\n  use st\n  real(8) :: x, y\n"
     "  call relax(x)\n  y = sum(v)\nend subroutine k\n",
     ["--routine", "k", "--dep", "y", "--indep", "x"],
     ["k.f90:8:", "FORALL reading an array it assigns"]),
    # Complex values: passive ones are kept (and taped: test_complex_values).
    ("subroutine k(x, y)\n  real(8), intent(in) :: x\n  real(8), intent(out) :: y\n"
     "  complex(8) :: z\n  z = cmplx(x, 1d0, 8)\n  y = real(z)**2\nend subroutine k\n",
     ["--dep", "y", "--indep", "x"], ["'z' is complex", "carries a derivative"]),
    # A function called inside a concatenation is invisible to adfort.
    ("module m\ncontains\ncharacter(len=8) function tag(i)\n  integer, intent(in) :: i\n"
     "  write(tag, '(i8)') i\nend function tag\nsubroutine k(x, y, s)\n"
     "  real(8), intent(in) :: x\n  real(8), intent(out) :: y\n"
     "  character(len=*), intent(out) :: s\n  s = 'step ' // tag(3)\n  y = x\n"
     "end subroutine k\nend module m\n", ["--routine", "k", "--dep", "y", "--indep", "x"],
     ["k.f90:11:", "calls 'tag'", "assign the function's value to a variable first"]),
    # A value written to an internal file, or to a unit, and read back:
    # its derivative was dropped (x_adj a third short, exit 0).
    ("subroutine k(x, y)\n  real(8), intent(in) :: x\n  real(8), intent(out) :: y\n"
     "  character(len=40) :: buf\n  real(8) :: a\n  write(buf, '(es24.16)') x*x\n"
     "  read(buf, *) a\n  y = a*x\nend subroutine k\n", ["--dep", "y", "--indep", "x"],
     ["k.f90:7:", "sets the active variable 'a'"]),
    ("subroutine k(x, y)\n  real(8), intent(in) :: x\n  real(8), intent(out) :: y\n"
     "  real(8) :: a\n  integer :: iu\n  iu = 42\n  write(iu) x*x\n  rewind(iu)\n"
     "  read(iu) a\n  y = a*x\nend subroutine k\n", ["--dep", "y", "--indep", "x"],
     ["k.f90:9:", "sets the active variable 'a'"]),
    # A function with side effects called inside a PRINT: its effect on an
    # active module variable was dropped.
    ("module m\n  real(8) :: acc = 0d0\ncontains\nreal(8) function f(x)\n"
     "  real(8), intent(in) :: x\n  acc = x*x\n  f = 2d0*x\nend function f\n"
     "subroutine k(x, y)\n  real(8), intent(in) :: x\n  real(8), intent(out) :: y\n"
     "  acc = 0d0\n  print *, f(x)\n  y = acc*x\nend subroutine k\nend module m\n",
     ["--routine", "k", "--dep", "y", "--indep", "x"],
     ["k.f90:13:", "this I/O statement calls 'f'", "assign its value to a variable"]),
])
def test_passive_constructs_that_cannot_work_are_fenced(tmp_path, source, args, fragments):
    src = tmp_path / "k.f90"
    src.write_text(source)
    result = run(["diff", str(src)] + args, tmp_path)
    assert_clean_failure(result, tmp_path, *fragments)


DRIVER = textwrap.dedent("""\
    program check
      use lookup_mod
      use lookup_mod_ad
      implicit none
      real(8) :: x, y, x_adj, y_adj
      integer :: n, k
      ! Each call of r_rev records once: the SAVE'd counter of its own
      ! copy of the state advances once per call, as r's would.
      do k = 1, 3
        x = 1.5d0
        x_adj = 0
        y_adj = 1
        call lookup_rev(x, x_adj, y, y_adj, n)
        if (n /= k) stop 1
        ! y = 2 x**2 + 3 x from the table built on the first call only
        if (abs(x_adj - (4*x + 3)) > 1d-12) stop 2
        if (abs(y - (2*x**2 + 3*x)) > 1d-12) stop 3
      end do
      ! The original keeps its own state: untouched by the generated routines.
      call lookup(x, y, n)
      if (n /= 1) stop 4
      print '(a)', 'ok'
    end program check
    """)


@needs_gfortran
@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_saved_state_advances_once_per_reversal(tmp_path, schedule):
    src = tmp_path / "lookup.f90"
    src.write_text(LOOKUP)
    result = run(["diff", str(src), "--routine", "lookup", "--dep", "y", "--indep", "x",
                  "--schedule", schedule, "-o", "lookup_ad.f90"], tmp_path)
    assert result.returncode == 0, result.stderr
    (tmp_path / "check.f90").write_text(DRIVER)
    build = subprocess.run(["gfortran", "-fcheck=all", "lookup.f90", "lookup_ad.f90",
                            "check.f90", "-o", "check"], cwd=tmp_path,
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    out = subprocess.run(["./check"], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0 and "ok" in out.stdout, out.stdout + out.stderr


SUBSTRINGS = textwrap.dedent("""\
    subroutine k(task, x, y)
      character(len=*), intent(inout) :: task
      real(8), intent(in) :: x
      real(8), intent(out) :: y
      character(len=8) :: msg, names(3)
      msg = task(3:)
      names(2) = msg(:4)
      names(1)(1:2) = 'ab'
      if (names(2)(1:1) == 'F' .or. msg(2:) .eq. 'G') then
        y = x**2
      else
        y = x
      end if
      task(1:2) = 'OK'
    end subroutine k
    """)


@needs_gfortran
def test_substrings_compile_strictly(tmp_path):
    """Substrings of scalars and of array elements (PSyclone reads the
    latter as opaque code) are kept as written."""
    (tmp_path / "k.f90").write_text(SUBSTRINGS)
    result = run(["diff", "k.f90", "--dep", "y", "--indep", "x", "-o", "k_ad.f90"], tmp_path)
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "k_ad.f90").read_text()
    assert "names(1)(1 : 2) = 'ab'" in text and "PSyclone CodeBlock" not in text
    build = subprocess.run(["gfortran", "-c", "-Wall", "-Werror=unused-variable",
                            "-std=f2008", "k.f90", "k_ad.f90"], cwd=tmp_path,
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr


def test_saved_state_advice_names_the_joint_link_running_it_again(tmp_path):
    """SAVE'd state of a routine called split by a routine that its caller
    reverses joint: the advice named the routine's own (already split)
    link, and following it changed nothing."""
    import subprocess
    import sys
    source = tmp_path / "k.f90"
    source.write_text(textwrap.dedent("""\
        module tab
          implicit none
        contains
          subroutine lookup(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            logical, save :: first = .true.
            real(8), save :: scale
            if (first) then
              scale = 2d0
              first = .false.
            else
              scale = scale + 1d0
            end if
            y = scale*x**2
          end subroutine lookup
          subroutine step(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            call lookup(x, y)
          end subroutine step
          subroutine column(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            call step(x, y)
          end subroutine column
        end module tab
        """))
    done = subprocess.run(
        [sys.executable, "-m", "adfort", "diff", str(source), "--routine", "column", "--dep",
         "y", "--indep", "x", "--schedule", "joint", "--link", "step:lookup=split", "-o",
         str(tmp_path / "o.f90")], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "--link column:step=split" in done.stderr, done.stderr
    assert "step:lookup" not in done.stderr, done.stderr


PASSIVE_INTERFACE = """\
subroutine k(x, y)
  real(8), intent(in) :: x
  real(8), intent(out) :: y
  interface
    subroutine setconst(b, c)
      real(8), intent({intent}) :: b
      real(8), intent(in) :: c
    end subroutine
  end interface
  y = x*x
  call setconst(y, x)
  y = y*x
end subroutine k
"""

SETCONST = """\
subroutine setconst(b, c)
  real(8), intent({intent}) :: b
  real(8), intent(in) :: c
  {body}
end subroutine setconst
"""


@pytest.mark.parametrize("intent, body, expected", [
    ("out", "b = 2d0", "2"),              # y = 2 x
    # y = (x**2 + 1) x, but no derivative flows through the passive call:
    # the first factor counts as a constant.
    ("inout", "b = b + 1d0", "x**2 + 1"),
    ("in", "", "3*x**2"),                 # y = x**3
])
def test_passive_routine_without_source_follows_its_interface(tmp_path, intent, body,
                                                              expected):
    """The intents of an INTERFACE block say what a passive routine without
    source changes: intent(out) and intent(inout) stop the derivative of the
    variable (it carries none after the call), intent(in) leaves it."""
    (tmp_path / "k.f90").write_text(PASSIVE_INTERFACE.format(intent=intent))
    (tmp_path / "setconst.f90").write_text(SETCONST.format(intent=intent, body=body))
    result = run(["diff", "k.f90", "--dep", "y", "--indep", "x", "--passive", "setconst",
                  "-o", "k_ad.f90"], tmp_path)
    assert result.returncode == 0, result.stderr
    (tmp_path / "d.f90").write_text(textwrap.dedent("""\
        program d
          real(8) :: x, xa, y, ya
          x = 1.5d0; xa = 0; ya = 1
          call k_rev(x, xa, y, ya)
          print '(es24.16)', xa
        end program d
        """))
    subprocess.run(["gfortran", "-o", "d", "k.f90", "setconst.f90", "k_ad.f90", "d.f90"],
                   cwd=tmp_path, check=True, capture_output=True)
    out = subprocess.run(["./d"], cwd=tmp_path, check=True, capture_output=True, text=True)
    x = 1.5
    assert abs(float(out.stdout) - eval(expected)) < 1e-12, (out.stdout, expected)


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_table_rebuilt_when_its_key_changes(schedule, tmp_path):
    """``IF (N /= NOLD) … NOLD = N``: a table rebuilt only for a new size
    (FFTPACK wrappers): a second run with the same key leaves it as it is.
    Joint refused it as state advanced twice (IF (FIRST) was accepted)."""
    import harness
    harness.check_source(tmp_path, "k.f90", """\
! adfort: routine=top dep=y indep=x
! adfort: init n=5 x=0.5:1.5 y=0
module tables
contains
  subroutine tab(n, x, y)
    integer, intent(in) :: n
    real(8), intent(in) :: x(n)
    real(8), intent(out) :: y(n)
    real(8), save :: c(64)
    integer, save :: nold = -1
    integer :: k
    if (n /= nold) then
      do k = 1, n
        c(k) = cos(0.1d0*k)
      end do
      nold = n
    end if
    y = c(1:n)*x**2
  end subroutine
  subroutine top(n, x, y)
    integer, intent(in) :: n
    real(8), intent(in) :: x(n)
    real(8), intent(out) :: y(n)
    real(8) :: t(n)
    call tab(n, x, t)
    call tab(n, t, y)
  end subroutine
end module
""", schedule)
