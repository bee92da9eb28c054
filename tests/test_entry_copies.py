"""Arguments a callee puts back from its local copy of their input values
(adfort/entry_copies.py): a caller linking it split then saves nothing
around the call.  Each case is checked against finite differences under
both schedules; the text checks say whether the copy was used."""

import re
import shutil
import subprocess
import sys
import textwrap

import pytest

import harness

needs_gfortran = pytest.mark.skipif(shutil.which("gfortran") is None, reason="no gfortran")

DRIVER = """\
          subroutine run(ncol, nk, nt, kd, q, obs, cost)
            integer, intent(in) :: ncol, nk, nt
            real(dp), intent(in) :: kd(nk), obs(nk, ncol)
            real(dp), intent(inout) :: q(nk, ncol)
            real(dp), intent(out) :: cost
            integer :: it, j
            do it = 1, nt
              do j = 1, ncol
                call step(nk, kd, q(:, j))
              end do
            end do
            cost = 0.5_dp*sum((q - obs)**2)
          end subroutine run
"""

HEAD = """\
        ! adfort: routine=run dep=cost indep=kd,q
        ! adfort: init ncol=3 nk=8 nt=3 kd=0.1:0.4 q=0.5:1.5 obs=0.5:1.5
"""


def _module(name, step):
    return HEAD + f"""\
        module {name}
          implicit none
          integer, parameter :: dp = kind(1.0d0)
        contains
        """ + textwrap.indent(textwrap.dedent(step), " " * 10) + DRIVER + f"""\
        end module {name}
        """


# (source, the restore expected at the end of step_ret, or None)
CASES = {
    # Copied whole, then updated in place by a nonlinear smoother.
    "whole_copy.f90": (_module("whole_copy", """\
        subroutine step(n, kd, q)
          integer, intent(in) :: n
          real(dp), intent(in) :: kd(n)
          real(dp), intent(inout) :: q(n)
          real(dp) :: old(n)
          integer :: k
          old = q
          do k = 2, n - 1
            q(k) = old(k) + kd(k)*(old(k+1) - 2.0_dp*old(k) + old(k-1))*old(k)**2
          end do
          q(1) = q(1)*exp(-kd(1)*old(2))
        end subroutine step
        """), "q = old"),
    # Copied backwards in a loop with other work, then solved in place.
    "loop_copy_backwards.f90": (_module("loop_copy_backwards", """\
        subroutine step(n, kd, q)
          integer, intent(in) :: n
          real(dp), intent(in) :: kd(n)
          real(dp), intent(inout) :: q(n)
          real(dp) :: r(n), g(n)
          integer :: k
          do k = n, 1, -1
            g(k) = 1.0_dp + kd(k)
            r(k) = q(k)
          end do
          q(1) = r(1)/g(1)
          do k = 2, n
            q(k) = (r(k) + kd(k)*q(k-1)*r(k))/g(k)
          end do
        end subroutine step
        """), "q(k) = r(k)"),
    # The copy covers the interior only; the routine changes q(1) too.
    "partial_copy.f90": (_module("partial_copy", """\
        subroutine step(n, kd, q)
          integer, intent(in) :: n
          real(dp), intent(in) :: kd(n)
          real(dp), intent(inout) :: q(n)
          real(dp) :: r(n)
          integer :: k
          do k = 2, n
            r(k) = q(k)
          end do
          q(1) = q(1)**2*kd(1)
          do k = 2, n
            q(k) = r(k)*q(k-1) + sin(r(k))
          end do
        end subroutine step
        """), None),
    # q is changed before it is copied: the copy is not its input value.
    "copy_after_change.f90": (_module("copy_after_change", """\
        subroutine step(n, kd, q)
          integer, intent(in) :: n
          real(dp), intent(in) :: kd(n)
          real(dp), intent(inout) :: q(n)
          real(dp) :: r(n)
          integer :: k
          q(n) = q(n)*(1.0_dp + kd(n))
          do k = 1, n
            r(k) = q(k)
          end do
          do k = 2, n
            q(k) = r(k)*r(k-1)*kd(k) + q(k-1)
          end do
        end subroutine step
        """), None),
}


def _routine(text, name):
    found = harness.routine_source(text, name)
    assert found, f"no {name} in the output"
    return found


@needs_gfortran
@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_entry_copies_give_the_gradient(tmp_path, name, schedule):
    harness.check_source(tmp_path, name, CASES[name][0], schedule)


@pytest.mark.parametrize("name", sorted(CASES))
def test_which_copies_put_arguments_back(tmp_path, name):
    text, restore = CASES[name]
    source = tmp_path / name
    source.write_text(textwrap.dedent(text))
    out = tmp_path / "out.f90"
    subprocess.run([sys.executable, "-m", "adfort", "diff", str(source), "--routine", "run",
                    "--dep", "cost", "--indep", "kd,q", "--schedule", "split", "-o", str(out)],
                   check=True, capture_output=True)
    generated = out.read_text()
    body = [line.strip() for line in _routine(generated, "step_ret").splitlines()
            if line.strip()]
    run_rec = _routine(generated, "run_rec")
    if restore is None:
        # Not a copy of the input value: step puts q back from its own tape.
        assert not any(re.fullmatch(r"q(\(k\))? = r(\(k\))?", line) for line in body), body
    else:
        assert restore in body[-4:], body
        # ... and the caller saves nothing around the call.
        assert re.search(r"=\s*q\(:,\s*j\)", run_rec) is None, run_rec
