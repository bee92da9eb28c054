"""Restructuring GO TO, RETURN, arithmetic IF, computed GO TO, named
EXIT/CYCLE and statement functions in the front end (adfort.restructure).

The property test compiles random GO TO-rich subroutines before and after
the rewrite and compares what they print on several inputs; longer runs:
``python -c "from adfort.testing.gotos import compare; print(compare(50, 7, True))"``.
"""

import re
import shutil
import subprocess
import sys
import textwrap

import pytest

from adfort.restructure import restructure
from adfort.testing.gotos import compare

needs_gfortran = pytest.mark.skipif(shutil.which("gfortran") is None, reason="no gfortran")


@needs_gfortran
@pytest.mark.parametrize("fixed", [True, False], ids=["fixed", "free"])
@pytest.mark.parametrize("seed", [11, 12, 13])
def test_restructuring_keeps_the_meaning_of_random_programs(seed, fixed):
    rejected, problems = compare(12, seed, fixed)
    assert not problems, "\n".join(problems)
    # Only irreducible graphs may be refused (the generator makes a few).
    assert all("irreducible" in m or "overlap" in m for _, m in rejected), rejected
    assert len(rejected) <= 3


def test_units_without_jumps_reach_psyclone_unchanged():
    source = textwrap.dedent("""\
        subroutine plain(x, y)
          real(8) x, y
          if (x > 0) then
            y = x
          end if
          return
        end subroutine
        """)
    assert restructure(source, False, "p.f90") == (source, None)


def test_only_the_unit_that_needs_it_is_rewritten_and_origins_follow():
    source = ("      SUBROUTINE A(X)\n"
              "      DOUBLE PRECISION X\n"
              "      IF (X .GT. 0) GO TO 10\n"
              "      X = -X\n"
              "   10 RETURN\n"
              "      END\n"
              "C     an untouched routine\n"
              "      SUBROUTINE B(X)\n"
              "      DOUBLE PRECISION X\n"
              "      X = 2*X\n"
              "      END\n")
    new, origin = restructure(source, True, "ab.f")
    lines = new.splitlines()
    assert "GO TO" not in new and "RETURN" not in new
    assert lines[-5:] == source.splitlines()[-5:]
    assert origin[-5:] == [("ab.f", n) for n in range(7, 12)]
    assert len(origin) == len(lines)
    # The IF built around the statement a GO TO skipped: each line keeps
    # its own origin.
    negated = lines.index("      IF (X .le. 0) THEN")
    assert lines[negated + 1].strip() == "X = -X"
    assert origin[negated:negated + 4] == [("ab.f", 3), ("ab.f", 4), ("ab.f", 3), ("ab.f", 6)]


def test_return_inside_loops_becomes_a_flag_and_exit():
    source = textwrap.dedent("""\
        subroutine f(n, x, y)
          integer n, i
          real(8) x(n), y
          y = 0
          if (n <= 0) return
          do i = 1, n
            y = y + x(i)**2
            if (y > 100d0) return
          end do
          y = sqrt(y)
        end subroutine
        """)
    new, _ = restructure(source, False, "f.f90")
    assert not re.search(r"\breturn\b", new.lower())
    assert "logical :: returning" in new
    assert "if (n > 0) then" in new
    assert re.search(r"if \(\.not\. returning\) then\n\s*y = sqrt\(y\)\n\s*end if", new), new


def test_backward_go_to_loop_becomes_do_while():
    source = ("      SUBROUTINE G(N, Y)\n"
              "      INTEGER N, I\n"
              "      DOUBLE PRECISION Y\n"
              "      I = 0\n"
              "   10 IF (I .GE. N) GO TO 20\n"
              "      I = I + 1\n"
              "      Y = Y*Y\n"
              "      GO TO 10\n"
              "   20 CONTINUE\n"
              "      END\n")
    new, _ = restructure(source, True, "g.f")
    assert "DO WHILE (I .lt. N)" in new and "GO TO" not in new


def _compile_and_run(workdir, name, source, main):
    path = workdir / f"{name}.f"
    path.write_text(source + main)
    subprocess.run(["gfortran", "-w", str(path), "-o", str(workdir / name)], check=True)
    return subprocess.run([str(workdir / name)], capture_output=True, text=True,
                          check=True).stdout


@needs_gfortran
@pytest.mark.parametrize("jump", ["GO TO 120", "GO TO (120, 120) K + 1",
                                  "IF (Y - 1.0D0) 120, 120, 120"])
def test_flag_of_a_jump_out_of_a_loop_is_reset_for_a_later_loop(tmp_path, jump):
    """One flag per target label: the jump out of the first loop to 120 set
    it, and the later loop, whose jump back to 120 tests it, must not see
    it still set (it ran once more: a wrong primal)."""
    source = ("      SUBROUTINE S(N, X, Y, K)\n      INTEGER N, K, I, NB\n"
              "      DOUBLE PRECISION X(N), Y\n      NB = 0\n"
              "      DO 10 I = 1, N\n"
              f"         IF (X(I) .GT. 0.5D0) {jump}\n"
              "   10 CONTINUE\n      Y = Y + 1.0D0\n  120 Y = Y*0.75D0 + X(1)\n"
              "      DO 20 I = 1, 1\n         K = K + 1\n         NB = NB + 1\n"
              "         IF (NB .EQ. 2) GO TO 120\n   20 CONTINUE\n      END\n")
    main = ("      PROGRAM MAIN\n      DOUBLE PRECISION X(3), Y\n      INTEGER K\n"
            "      X = (/0.1D0, 0.7D0, 0.2D0/)\n      Y = 0.3D0\n      K = 0\n"
            "      CALL S(3, X, Y, K)\n      PRINT *, Y, K\n      END\n")
    new, _ = restructure(source, True, "s.f")
    assert "GO TO" not in new.upper().replace("GOTO_", "")
    assert _compile_and_run(tmp_path, "before", source, main) == \
        _compile_and_run(tmp_path, "after", new, main)


def test_statement_functions_are_inlined_with_their_type():
    source = ("      SUBROUTINE S(N, X, Y)\n"
              "      INTEGER N, IVAR, IDBL, M\n"
              "      DOUBLE PRECISION X(N), Y, SQ, A, B, DFLOAT\n"
              "      DFLOAT(IVAR) = IVAR\n"
              "      SQ(A, B) = A*A + B\n"
              "      IDBL(M) = 2*M\n"
              "      X(1) = SQ(X(2) - 1, DFLOAT(N)) + SQ(SQ(Y, 1D0), 0D0)\n"
              "      Y = IDBL(N)\n"
              "      END\n")
    new, _ = restructure(source, True, "s.f")
    body = [l.strip() for l in new.replace("\n     &", "").splitlines()]
    assert "DOUBLE PRECISION X(N), Y" in body
    assert "INTEGER N" in body
    assert ("X(1) = dble((X(2) - 1)*(X(2) - 1) + dble(N)) + "
            "dble(dble(Y*Y + 1D0)*dble(Y*Y + 1D0) + 0D0)") in body
    assert "Y = int(2*N)" in body


def test_an_array_element_assignment_is_not_a_statement_function():
    source = ("      SUBROUTINE S(N, X, Y)\n"
              "      INTEGER N\n"
              "      DOUBLE PRECISION X, Y\n"
              "      DIMENSION X(N)\n"
              "      X(1) = Y\n"
              "      GO TO 10\n"
              "   10 Y = X(1)\n"
              "      END\n")
    new, _ = restructure(source, True, "s.f")
    assert "X(1) = Y" in new and "Y = X(1)" in new


def run_cli(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return subprocess.run([sys.executable, "-m", "adfort", "diff", name, "--routine", "s",
                           "--dep", "y", "--indep", "x", "-o", "out.f90"], cwd=tmp_path,
                          capture_output=True, text=True)


@pytest.mark.parametrize("name, text, line, words", [
    ("irreducible.f",
     "      SUBROUTINE S(N, X, Y)\n      INTEGER N, I\n      DOUBLE PRECISION X(N), Y\n"
     "      I = 0\n      IF (Y .GT. 0) GO TO 20\n   10 Y = Y + X(1)\n   20 I = I + 1\n"
     "      IF (I .LT. N) GO TO 10\n      END\n", 7, "irreducible"),
    ("assigned_format.f",
     "      SUBROUTINE S(N, X, Y)\n      INTEGER N, L\n      DOUBLE PRECISION X(N), Y\n"
     "      ASSIGN 100 TO L\n      Y = X(1)\n      IF (Y .GT. 2) GO TO 10\n"
     "      WRITE (*, L) Y\n  100 FORMAT (F8.3)\n   10 CONTINUE\n      END\n", 4,
     "not the label of an executable statement"),
    ("alternate.f90",
     "subroutine s(n, x, y, *)\n  integer n\n  real(8) x(n), y\n\n\n  y = x(1)\n"
     "  if (y > 1) return 1\nend subroutine\n", 7, "alternate return"),
    ("nolabel.f90",
     "subroutine s(n, x, y)\n  integer n\n  real(8) x(n), y\n  y = x(1)\n"
     "  if (y > 1) go to 99\nend subroutine\n", 5, "label 99"),
])
def test_control_flow_errors_name_the_users_line(tmp_path, name, text, line, words):
    proc = run_cli(tmp_path, name, text)
    assert proc.returncode == 1
    assert f"{name}:{line}:" in proc.stderr and words in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "out.f90").exists()


def test_later_errors_name_the_users_line_after_restructuring(tmp_path):
    text = textwrap.dedent("""\
        subroutine s(n, x, y)
          integer n, i
          real(8) x(n), y
          real(8), pointer :: p
          y = 0
          do i = 1, n
            if (x(i) < 0) go to 10
            y = y + x(i)
          end do
        10 continue
          y = 2*y


          p => y
        end subroutine
        """)
    proc = run_cli(tmp_path, "late.f90", text)
    assert proc.returncode == 1
    assert "late.f90:14:" in proc.stderr and "pointer" in proc.stderr


def test_an_error_in_a_statement_a_return_put_under_an_if_names_its_line(tmp_path):
    # The IF built around the rest of the routine was written on one line
    # with the statement, so the error named the RETURN's line.
    text = textwrap.dedent("""\
        subroutine s(n, x, idx, y)
          integer, intent(in) :: n, idx(n)
          real(8), intent(in) :: x(n)
          real(8), intent(out) :: y(n)
          y = 0d0
          if (x(1) > 5d0) return
          y = x(idx)
        end subroutine s
        """)
    proc = run_cli(tmp_path, "ret.f90", text)
    assert proc.returncode == 1
    assert "ret.f90:7:" in proc.stderr and "vector subscript" in proc.stderr, proc.stderr
