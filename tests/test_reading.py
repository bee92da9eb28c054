"""Reading only what a differentiation needs (adfort/units.py,
adfort/reading.py): the scanner's program units, the closure from the
target over calls, function references, generic interfaces, renamed
imports and modules on the search path, and outputs identical to reading
the whole file."""

import os
import subprocess
import sys
import textwrap

import pytest
from psyclone.psyir.nodes import Routine

from adfort import units
from adfort.errors import where
from adfort.frontend import read_file
from adfort.reading import ReadPlan


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text) if path.suffix.lower() == ".f90" else text)
    return path


def run(args, cwd, **env):
    return subprocess.run([sys.executable, "-m", "adfort"] + args, cwd=cwd,
                          capture_output=True, text=True, env={**os.environ, **env})


def names(tree):
    return sorted(r.name.lower() for r in tree.walk(Routine))


# ---- the scanner ---------------------------------------------------------
FREE = """\
    module physics
      implicit none
      private
      public :: column, gen, unused
      integer, parameter :: wp = kind(1.0d0)
      interface gen
        module procedure gen_a, gen_b
      end interface gen
      type :: state_t
        real(wp) :: t
      contains
        procedure :: step => state_step
      end type state_t
    contains
      pure real(wp) function gen_a(x) result(y)
        real(wp), intent(in) :: x
        y = 2*x; return
      end function gen_a
      function gen_b(x, &
                     n)
        real(wp), intent(in) :: x
        integer, intent(in) :: n
        real(wp) :: gen_b
        gen_b = x*n  ! call unused(x)
      end function
      subroutine column(a, b)
        real(wp), intent(inout) :: a, b
        character(len=8) :: s = 'call unused'
        b = gen(a) + inner(b)
      contains
        real(wp) function inner(z)
          real(wp), intent(in) :: z
          inner = z
        end function inner
      end subroutine column
      subroutine state_step(s)
        class(state_t) :: s
      end subroutine state_step
      subroutine unused(x)
        real(wp) :: x
      endsubroutine unused
    end module physics
    subroutine outside(q)
      real q
      call column(q, q)
    end
    """


def test_scanner_finds_units_headers_and_names():
    found = units.scan(textwrap.dedent(FREE), fixed_form=False)
    assert [(u.kind, u.name, u.module) for u in found.units] == [
        ("module", "physics", None), ("function", "gen_a", "physics"),
        ("function", "gen_b", "physics"), ("subroutine", "column", "physics"),
        ("subroutine", "state_step", "physics"), ("subroutine", "unused", "physics"),
        ("subroutine", "outside", None)]
    module, gen_a, gen_b, column, _, unused, outside = found.units
    assert (gen_a.arguments, gen_a.result) == (["x"], "y")
    assert (gen_b.arguments, gen_b.result) == (["x", "n"], "gen_b")
    assert column.inner == [("inner", ["z"], "inner")]
    # Names in comments, strings and access statements do not count.
    assert "unused" not in gen_b.names | column.names | module.names
    assert {"gen_a", "gen_b", "state_step"} <= module.names
    assert "gen" in column.names and "column" in outside.names
    lines = textwrap.dedent(FREE).splitlines()
    assert lines[unused.first].strip() == "subroutine unused(x)"
    assert lines[unused.last].strip() == "endsubroutine unused"
    assert module.implicit_none and not outside.implicit_none
    assert found.has_internal_procedures() and found.interfaces == 1


FIXED = """\
C     a BLAS-like pair, F77 style
      SUBROUTINE DAXPYX(N, DA, DX, DY)
      INTEGER N, I
      DOUBLE PRECISION DA, DX(*), DY(*)
      DO 10 I = 1, N
         DY(I) = DY(I) +
     &           DA*DX(I)
   10 CONTINUE
      RETURN
      END
      DOUBLE PRECISION FUNCTION DNRM(N, X)
      INTEGER N
      DOUBLE PRECISION X(*), DDOTX
      DNRM = SQRT(DDOTX(N, X,
     $                  X))
      END
"""


def test_scanner_reads_fixed_form():
    found = units.scan(FIXED, fixed_form=True)
    daxpy, dnrm = found.units
    assert (daxpy.kind, daxpy.name, daxpy.first, daxpy.last) == ("subroutine", "daxpyx", 1, 9)
    assert (dnrm.kind, dnrm.name, dnrm.arguments, dnrm.result) == \
        ("function", "dnrm", ["n", "x"], "dnrm")
    assert "ddotx" in dnrm.names and "sqrt" in dnrm.names


@pytest.mark.parametrize("text", [
    "submodule (m) s\nend submodule s\n",
    "module m\ncontains\nsubroutine s\nend subroutine s\n",   # never closed
    "end\nend\n",
])
def test_scanner_gives_up_rather_than_guess(text):
    assert units.scan(text, fixed_form=False) is None


# ---- the closure and the pruned read -------------------------------------
LIBRARY = """\
    module lib
      implicit none
      integer, parameter :: wp = kind(1.0d0)
      interface blend
        module procedure blend_scalar
      end interface blend
    contains
      real(wp) function blend_scalar(a, b)
        real(wp), intent(in) :: a, b
        blend_scalar = 0.5_wp*(a + b)
      end function blend_scalar
      subroutine not_called(a)
        real(wp) :: a
        a = 0
      end subroutine not_called
      real(wp) function renamed_f(a)
        real(wp), intent(in) :: a
        renamed_f = a*a
      end function renamed_f
    end module lib
    """

MODEL = """\
    module unrelated_mod
      implicit none
    contains
      subroutine unrelated(x)
        real :: x
        x = 1
      end subroutine unrelated
    end module unrelated_mod
    module model
      use lib, only: wp, blend, sq => renamed_f
      implicit none
      real(wp) :: gamma = 1.5_wp
    contains
      subroutine helper(x, y)
        real(wp), intent(in) :: x
        real(wp), intent(inout) :: y
        y = y + blend(x, y)
      end subroutine helper
      subroutine unused_here(x)
        real(wp) :: x
        x = 2*x
      end subroutine unused_here
      subroutine step(x, y)
        real(wp), intent(in) :: x
        real(wp), intent(inout) :: y
        call helper(x, y)
        y = gamma*sq(y) + extfun(x)
      end subroutine step
    end module model
    real(kind=8) function extfun(x)
      real(kind=8), intent(in) :: x
      extfun = sin(x)
    end function extfun
    subroutine other_external(x)
      real(kind=8) :: x
      x = 0
    end subroutine other_external
    """


def test_plan_keeps_the_call_tree_and_what_it_uses(tmp_path):
    write(tmp_path / "inc" / "lib.f90", LIBRARY)
    model = write(tmp_path / "model.f90", MODEL)
    plan = ReadPlan(search_path=[str(tmp_path / "inc")])
    assert plan.choose(str(model), {"x", "y"}) is None   # helper and step both fit
    plan.plan(str(model), "step")
    tree = read_file(str(model), plan=plan)
    assert names(tree) == ["extfun", "helper", "step"]
    assert tree.adfort_dropped == {"unrelated", "unused_here", "other_external"}
    lib = read_file(str(tmp_path / "inc" / "lib.f90"), plan=plan)
    # blend_scalar through the generic interface, renamed_f through the rename
    assert names(lib) == ["blend_scalar", "renamed_f"]
    # Lines still name the user's file and line.
    step = next(r for r in tree.walk(Routine) if r.name == "step")
    assert where(step.children[0]).endswith("model.f90:26")


def test_choose_finds_the_only_routine_with_the_arguments(tmp_path):
    model = write(tmp_path / "model.f90", MODEL)
    plan = ReadPlan()
    assert plan.choose(str(model), {"x"}) is None        # several
    assert plan.choose(str(model), {"q"}) is None        # none
    single = write(tmp_path / "single.f90", LIBRARY)
    assert ReadPlan().choose(str(single), {"b"}) == "blend_scalar"


def test_output_identical_to_reading_everything_and_errors_keep_their_lines(tmp_path):
    write(tmp_path / "inc" / "lib.f90", LIBRARY)
    model = MODEL
    write(tmp_path / "model.f90", model)
    args = ["diff", "model.f90", "--routine", "step", "--dep", "y", "--indep", "x,y",
            "-I", "inc", "-o", "-"]
    pruned = run(args, tmp_path)
    whole = run(args, tmp_path, ADFORT_READ_ALL="1")
    assert pruned.returncode == 0, pruned.stderr
    assert pruned.stdout == whole.stdout
    # An error in the target, below dropped routines, names its own line.
    text = model.replace("call helper(x, y)", "call helper(x, y)\n        call nowhere(y)")
    write(tmp_path / "model.f90", text)
    failed = run(args, tmp_path)
    assert failed.returncode == 1
    assert "model.f90:27" in failed.stderr, failed.stderr


def test_routines_outside_the_call_tree_are_never_parsed(tmp_path):
    # A routine PSyclone could not even parse, beside the target, is not read.
    write(tmp_path / "inc" / "lib.f90", LIBRARY)
    write(tmp_path / "model.f90", MODEL.replace("  x = 0\n", "  x = = 0\n"))
    assert "x = = 0" in (tmp_path / "model.f90").read_text()
    done = run(["diff", "model.f90", "--routine", "step", "--dep", "y", "--indep", "x",
                "-I", "inc", "-o", "-"], tmp_path)
    assert done.returncode == 0, done.stderr


def test_a_routine_left_unread_still_owns_its_name(tmp_path):
    """Generated names avoid those of routines adfort did not read: here
    x's adjoint cannot be x_adj, a routine of the module r_rev's module uses."""
    write(tmp_path / "m.f90", """\
        module m
          implicit none
        contains
          subroutine f(x, y)
            real(kind=8), intent(in) :: x
            real(kind=8), intent(out) :: y
            y = x*x
          end subroutine f
          subroutine x_adj()
          end subroutine x_adj
        end module m
        """)
    args = ["diff", "m.f90", "--dep", "y", "--indep", "x", "-o", "-"]
    pruned = run(args, tmp_path)
    assert pruned.returncode == 0, pruned.stderr
    assert "x_adj_1" in pruned.stdout
    assert pruned.stdout == run(args, tmp_path, ADFORT_READ_ALL="1").stdout
