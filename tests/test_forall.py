"""FORALL written as DO loops before parsing (adfort/forall.py) when that
computes the same values; the others stay FORALL and the fence says so.
The derivative check is the fixture sea_ice_thermo_forall.f90."""

import subprocess
import sys
import textwrap

import pytest

from adfort.forall import lower_forall


def lowered(text):
    text = textwrap.dedent(text)
    out = lower_forall(text, fixed_form=False)
    assert out.count("\n") == text.count("\n"), "lines must keep their numbers"
    return out


def test_one_line_forall_with_mask_and_stride():
    out = lowered("forall (i = 1:n:2, j = 1:m, x(i, j) > 0) y(i, j) = sqrt(x(i, j))\n")
    assert out == ("do j = 1, m; do i = 1, n, 2; if (x(i, j) > 0) then; "
                   "y(i, j) = sqrt(x(i, j)); end if; end do; end do\n")


def test_construct_gets_a_loop_nest_per_statement():
    out = lowered("""\
        forall (k = 1:n)   ! layers
          a(k) = b(k) + &
                 c(k)  ! sum
          d(k) = a(k)*2
        end forall
        """)
    assert out.splitlines() == [
        "",
        "  do k = 1, n; a(k) = b(k) + &",
        "         c(k); end do ! sum",
        "  do k = 1, n; d(k) = a(k)*2; end do",
        ""]


@pytest.mark.parametrize("text", [
    "forall (i = 2:n) a(i) = a(i - 1)\n",                    # reads what it assigns
    "forall (i = 1:n, a(i) > 0) a(i) = 0\n",                 # the mask reads it
    "forall (i = 1:n) a(idx(i)) = b(i)\n".replace("idx", "a"),
    "forall (integer :: i = 1:n) a(i) = b(i)\n",             # a type-spec
    "forall (i = 1:n - 1)\n  c(i) = b(i)\n  a(i) = a(i + 1)\nend forall\n",
    "forall (i = 1:n, b(i) > 0)\n  b(i) = 1\nend forall\n",
])
def test_foralls_that_loops_would_change_are_left_alone(text):
    assert lower_forall(text, fixed_form=False) == text


def test_a_forall_left_alone_is_a_clear_error(tmp_path):
    (tmp_path / "s.f90").write_text(textwrap.dedent("""\
        subroutine shift(n, a, s)
          integer, intent(in) :: n
          real(kind=8), intent(inout) :: a(n)
          real(kind=8), intent(out) :: s
          integer :: i
          forall (i = 2:n) a(i) = a(i - 1)
          s = sum(a)
        end subroutine shift
        """))
    done = subprocess.run([sys.executable, "-m", "adfort", "diff", "s.f90", "--dep", "s",
                           "--indep", "a"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 1
    assert "s.f90:6:" in done.stderr and "FORALL" in done.stderr, done.stderr


def test_reading_the_element_assigned_is_fine():
    out = lowered("forall (i = 1:n) v(i) = v(i) + psi*w( i )\n")
    assert out.startswith("do i = 1, n; v(i) = v(i) + psi")
    assert lower_forall("forall (i = 1:n) v(i) = v( i ) + v\n", False).startswith("forall")
