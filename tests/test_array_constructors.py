"""Array constructors (``[a, b, c]``): one holding values that carry
derivatives is an error at its line (its values once got no adjoint at
all: a silently zero gradient); one of passive values in an active
expression is differentiated as any constant array.  Nested WHERE
constructs, which PSyclone reads as loop nests (silently wrong results),
are an error too."""

import subprocess
import sys
import textwrap

import pytest

import harness

REJECTED = {
    "scalar elements": "w = [x(1)*x(2), sin(x(3)), 2.0d0]\n    cost = sum(w**2)",
    "sections": "w = [x(2:3), x(1)]\n    cost = sum(w**2*x)",
    # a is active only through the constructor: activity must see it.
    "through a local": "a = 2.0d0*x(1)\n    w = [a, 1.0d0, 3.0d0]\n    cost = sum(w**2)",
    "inside an intrinsic": "cost = dot_product([x(1), x(2)*x(3)], [1d0, 2d0])",
}


@pytest.mark.parametrize("case", sorted(REJECTED))
def test_constructor_of_active_values_is_a_clear_error(case, tmp_path):
    source = tmp_path / "k.f90"
    source.write_text(textwrap.dedent("""\
        module m
          implicit none
        contains
          subroutine run(x, cost)
            real(8), intent(in) :: x(3)
            real(8), intent(out) :: cost
            real(8) :: w(3), a
            a = 0.0d0
            {body}
          end subroutine run
        end module m
        """).replace("{body}", REJECTED[case]))
    out = tmp_path / "k_ad.f90"
    done = subprocess.run([sys.executable, "-m", "adfort", "diff", str(source), "--routine",
                           "run", "--dep", "cost", "--indep", "x", "-o", str(out)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "k.f90:" in done.stderr and "array constructor" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and not out.exists()


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_constructor_of_passive_values_in_an_active_expression(schedule, tmp_path):
    harness.check_source(tmp_path, "weights.f90", """\
        ! adfort: routine=run dep=cost indep=x
        ! adfort: init x=0.5:1.5
        ! adfort: shape x=3
        module m
          implicit none
        contains
          subroutine run(x, cost)
            real(8), intent(in) :: x(:)
            real(8), intent(out) :: cost
            real(8) :: w(3)
            w = [0.25d0, 0.5d0, 0.25d0]
            cost = dot_product(w, x**3) + sum([1d0, 2d0, 3d0]*sin(x))
          end subroutine run
        end module m
        """, schedule)


def test_nested_where_is_a_clear_error(tmp_path):
    # PSyclone reads a nested WHERE as a loop nest: the inner assignment ran
    # for every element of the outer mask, and r_rev's results and the
    # gradient were silently wrong (explicit-shape arrays; with assumed
    # shapes it was rejected with a message about reading other elements).
    source = tmp_path / "k.f90"
    source.write_text(textwrap.dedent("""\
        module m2
          implicit none
        contains
          subroutine f(n, v, y)
            integer, intent(in) :: n
            real(8), intent(in) :: v(n)
            real(8), intent(out) :: y(n)
            y = v
            where (v > 0.5d0)
              where (v > 1.0d0)
                y = y*v
              end where
            end where
          end subroutine f
        end module m2
        """))
    done = subprocess.run([sys.executable, "-m", "adfort", "diff", str(source), "--routine",
                           "f", "--dep", "y", "--indep", "v", "-o", str(tmp_path / "o.f90")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1 and "k.f90:11" in done.stderr, done.stderr
    assert "nested WHERE constructs are not supported" in done.stderr, done.stderr
    assert not (tmp_path / "o.f90").exists()


def test_implied_do_constructor_is_a_clear_error(tmp_path):
    """PSyclone keeps an implied-DO constructor as text: the message names
    it and says what to write instead (it called it a statement)."""
    source = tmp_path / "k.f90"
    source.write_text(textwrap.dedent("""\
        subroutine run(n, x, cost)
          integer, intent(in) :: n
          real(8), intent(in) :: x(n)
          real(8), intent(out) :: cost
          real(8) :: w(n)
          integer :: i
          w = [(real(i, 8), i = 1, n)]
          cost = sum(x*w)
        end subroutine run
        """))
    out = tmp_path / "k_ad.f90"
    done = subprocess.run([sys.executable, "-m", "adfort", "diff", str(source), "--routine",
                           "run", "--dep", "cost", "--indep", "x", "-o", str(out)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "k.f90:7:" in done.stderr and "array constructor" in done.stderr \
        and "DO loop" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and not out.exists()
