"""BLOCK constructs (adfort/blocks.py): their locals declared in the routine,
renamed where the routine already has the name; what would change once
lifted is a clear error at the construct's line.  The FD check of a kernel
written with blocks is the fixture ``limiter_blocks_f2008.f90``."""

import re
import textwrap

import pytest

import harness
from harness import run_adfort as run

RENAMING = """\
! adfort: routine=relax dep=y indep=x
! adfort: init n=6 x=0.5:1.5
module relax_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  type :: pair
    real(wp) :: s, w
  end type pair
contains
  real(wp) function weight(s, w)
    real(wp), intent(in) :: s, w
    weight = s*w
  end function weight
  subroutine relax(n, x, y)
    integer, intent(in) :: n
    real(wp), intent(inout) :: x(n)
    real(wp), intent(out) :: y
    real(wp) :: s
    type(pair) :: p
    integer :: i
    s = 2.0_wp
    y = 0.0_wp
    do i = 1, n
      block
        real(wp) :: s, w
        p%s = x(i)
        p%w = 0.5_wp
        s = p%s**2
        w = weight(w=2.0_wp*p%w, s=s)
        x(i) = x(i) - w*s
      end block
      y = y + s*x(i)
    end do
  end subroutine relax
end module relax_mod
"""


def test_block_locals_renamed_not_components_or_keywords(tmp_path):
    """The block's ``s`` shadows the routine's: it is renamed, and the
    component ``p%s`` and the keyword ``s=`` keep their names."""
    for schedule in ("split", "joint"):
        harness.check_source(tmp_path, "relax.f90", RENAMING, schedule, primal_tol=1e-12)
    done = run(["diff", "relax.f90", "--dep", "y", "--indep", "x", "--no-inline", "-o",
                "plain_ad.f90"], tmp_path)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "plain_ad.f90").read_text().lower()
    # (the keywords matched to weight's dummies s and w, in that order)
    assert "s_blk = p%s ** 2" in text and "call weight_rec(s_blk, weight_argument, w)" in text, \
        text
    assert not re.search(r"^\s*(end )?block\b", text, re.M), text


@pytest.mark.parametrize("inside, fragments", [
    ("real(8), allocatable :: w(:)\n      allocate(w(n))\n      w = x\n      y = sum(w)",
     ["ALLOCATABLE local of a BLOCK construct"]),
    ("real(8) :: w(m)\n      w = x(1:m)\n      y = sum(w)",
     ["takes a bound or length from 'm'", "declare the array in the routine"]),
    ("use iso_fortran_env, only: real64\n      y = sum(x)",
     ["a USE statement inside a BLOCK construct"]),
])
def test_what_lifting_would_change_is_refused(inside, fragments, tmp_path):
    (tmp_path / "k.f90").write_text(textwrap.dedent("""\
        subroutine k(n, x, y)
          integer, intent(in) :: n
          real(8), intent(in) :: x(n)
          real(8), intent(out) :: y
          integer :: m
          m = n - 1
          block
              {inside}
          end block
        end subroutine k
        """).format(inside=inside))
    done = run(["diff", "k.f90", "--dep", "y", "--indep", "x"], tmp_path)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "k.f90:8:" in done.stderr, done.stderr
    for fragment in fragments:
        assert fragment in done.stderr, done.stderr
    assert not list(tmp_path.glob("*_ad.f90"))


def test_exit_of_a_named_block_is_refused(tmp_path):
    (tmp_path / "k.f90").write_text(textwrap.dedent("""\
        subroutine k(n, x, y)
          integer, intent(in) :: n
          real(8), intent(in) :: x(n)
          real(8), intent(out) :: y
          y = 0
          scan: block
            integer :: i
            do i = 1, n
              if (x(i) < 0) exit scan
              y = y + x(i)**2
            end do
          end block scan
        end subroutine k
        """))
    done = run(["diff", "k.f90", "--dep", "y", "--indep", "x"], tmp_path)
    assert done.returncode == 1 and "k.f90:9:" in done.stderr, done.stderr
    assert "EXIT outside a DO loop named 'scan'" in done.stderr, done.stderr
    assert "out of a BLOCK construct, put the rest of the block under an IF" in done.stderr


def test_a_block_in_a_routine_with_go_to(tmp_path):
    """The front end restructures the GO TO loop around the block's
    statements; the block's local is the routine's."""
    source = """\
        ! adfort: routine=iterb dep=y indep=x
        ! adfort: init n=5 x=0.5:1.5
        subroutine iterb(n, x, y)
          implicit none
          integer, intent(in) :: n
          real(8), intent(in) :: x(n)
          real(8), intent(out) :: y
          integer :: k, i
          k = 0
          y = 0
        10 k = k + 1
          do i = 1, n
            block
              real(8) :: s
              s = x(i)**2/k
              y = y + sin(s)
            end block
          end do
          if (k < 3) go to 10
        end subroutine iterb
        """
    for schedule in ("split", "joint"):
        harness.check_source(tmp_path, "iterb.f90", source, schedule)
