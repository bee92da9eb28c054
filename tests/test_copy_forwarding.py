"""Reads of a state array forwarded to the copy the same iteration makes of
it (adfort/copy_forwarding.py), so that a solver overwriting the state
leaves its coefficients computable again from the copy the returning
motion is handed (adfort/handover.py, ``_given_arrays``).  Each case is
checked against finite differences under both schedules; the text checks
say whether the reads were forwarded and what the recording tapes."""

import re
import shutil

import pytest

import harness

needs_gfortran = pytest.mark.skipif(shutil.which("gfortran") is None, reason="no gfortran")

_SOLVER = """\
          subroutine tridiag(n, a, b, c, d, x)
            integer, intent(in) :: n
            real(wp), intent(in) :: a(n), b(n), c(n), d(n)
            real(wp), intent(out) :: x(n)
            real(wp) :: cp(n), dp(n), den
            integer :: k
            cp(1) = c(1)/b(1)
            dp(1) = d(1)/b(1)
            do k = 2, n
              den = b(k) - a(k)*cp(k-1)
              cp(k) = c(k)/den
              dp(k) = (d(k) - a(k)*dp(k-1))/den
            end do
            x(n) = dp(n)
            do k = n - 1, 1, -1
              x(k) = dp(k) - cp(k)*x(k+1)
            end do
          end subroutine tridiag
"""


def _column(loop_body, after="", header="! adfort: routine=run dep=cost indep=t,kd",
            before=""):
    """An implicit diffusion step on a column, stepped in time, whose
    coefficient loop is `loop_body`, after the statements `before`;
    `after` follows the solver call."""
    return f"""\
        {header}
        ! adfort: init n=9 nt=3 kd=0.5:2 t=260:300
        module column
          implicit none
          integer, parameter :: wp = kind(1.0d0)
        contains
{_SOLVER}
          subroutine step(n, kd, t)
            integer, intent(in) :: n
            real(wp), intent(in) :: kd
            real(wp), intent(inout) :: t(n)
            real(wp) :: a(n), b(n), c(n), rhs(n), kz, ri, ke(0:n)
            integer :: k
{before}
            do k = 1, n
{loop_body}
            end do
            call tridiag(n, a, b, c, rhs, t)
{after}
          end subroutine step

          subroutine run(n, nt, kd, t, cost)
            integer, intent(in) :: n, nt
            real(wp), intent(in) :: kd
            real(wp), intent(inout) :: t(n)
            real(wp), intent(out) :: cost
            integer :: it
            do it = 1, nt
              call step(n, kd, t)
            end do
            cost = sum(t**2*(1.0_wp + 0.01_wp*t))
          end subroutine run
        end module column
        """


_COEFFICIENTS = """\
              kz = kd*(1.0_wp + 1.0e-3_wp*(t(k) - 270.0_wp)**2)*0.05_wp
              a(k) = -kz
              c(k) = -kz
              if (k == 1) a(k) = 0.0_wp
              if (k == n) c(k) = 0.0_wp
              b(k) = 1.0_wp - a(k) - c(k)"""

# (source, whether the coefficients read the copy)
CASES = {
    # The state-dependent diffusivity, the copy last in the iteration.
    "copy_last.f90": (_column(_COEFFICIENTS + "\n              rhs(k) = t(k)"), True),
    # The copy first: nothing to move.
    "copy_first.f90": (_column("              rhs(k) = t(k)\n" + _COEFFICIENTS), True),
    # The copy is written again after the solver: it no longer holds the
    # state it copied.
    "copy_rewritten.f90": (_column(_COEFFICIENTS + "\n              rhs(k) = t(k)",
                                   "            rhs(1) = 0.0_wp\n"
                                   "            t(1) = t(1) + 1.0e-3_wp*rhs(2)"), False),
    # The copy under an IF: not every iteration makes it.
    "copy_guarded.f90": (_column(_COEFFICIENTS + "\n              rhs(k) = 0.0_wp\n"
                                 "              if (k > 0) rhs(k) = t(k)"), False),
    # The copy read in the iteration before it is made (its old value).
    "copy_read_first.f90": (_column("              if (k > 1) rhs(k) = rhs(k-1)\n"
                                    + _COEFFICIENTS + "\n              rhs(k) = t(k)"), False),
}

# Diffusivities at the interfaces from a Richardson number (reading t(k)
# and t(k+1)) in a loop before the copy's: the copy is made first, in a
# loop of its own, and both loops read it.
_RICHARDSON = """\
            do k = 1, n - 1
              ri = 9.81_wp*(t(k) - t(k+1))/(1.0e-2_wp*t(k) + 1.0_wp)
              ke(k) = kd/(1.0_wp + 5.0_wp*max(ri, 0.0_wp))
            end do
            ke(0) = 0.0_wp
            ke(n) = 0.0_wp"""
_FROM_KE = """\
              a(k) = -0.05_wp*ke(k-1)
              c(k) = -0.05_wp*ke(k)
              b(k) = 1.0_wp - a(k) - c(k)
              rhs(k) = t(k)"""
CASES["copy_hoisted.f90"] = (_column(_FROM_KE, before=_RICHARDSON), True)
# The surface value changed between the two loops: the copy goes no
# higher, and the Richardson loop keeps reading the state.
CASES["copy_hoist_blocked.f90"] = (_column(_FROM_KE, before=_RICHARDSON
                                           + "\n            t(n) = max(t(n), 250.0_wp)"),
                                   False)

# A 2-D state relaxed in place: the copy's subscripts name both loops'
# indices.  The state never changed after the loop would make forwarding
# pointless: checked by a variant reading a second, unchanged array.
CASES["copy_2d.f90"] = ("""\
        ! adfort: routine=relax dep=cost indep=t
        ! adfort: init n=5 m=4 t=0.5:1.5
        module relax_2d
          implicit none
          integer, parameter :: wp = kind(1.0d0)
        contains
          subroutine relax(n, m, t, cost)
            integer, intent(in) :: n, m
            real(wp), intent(inout) :: t(n, m)
            real(wp), intent(out) :: cost
            real(wp) :: w(n, m), old(n, m)
            integer :: j, k
            do j = 1, m
              do k = 1, n
                w(k, j) = 0.1_wp*t(k, j)**2
                old(k, j) = t(k, j)
              end do
            end do
            do j = 1, m
              do k = 1, n
                t(k, j) = old(k, j) + w(k, j)*sin(t(k, j))
              end do
            end do
            cost = sum(t**3) + sum(w*old)
          end subroutine relax
        end module relax_2d
        """, True)
CASES["state_unchanged.f90"] = (CASES["copy_2d.f90"][0].replace(
    "t(k, j) = old(k, j) + w(k, j)*sin(t(k, j))",
    "old(k, j) = old(k, j) + w(k, j)*sin(t(k, j))").replace(
    "intent(inout) :: t(n, m)", "intent(in) :: t(n, m)"), False)


@needs_gfortran
@pytest.mark.parametrize("schedule", ["joint", "split"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_forwarded_copies_give_the_gradient(tmp_path, name, schedule):
    harness.check_source(tmp_path, name, CASES[name][0], schedule)


@pytest.mark.parametrize("name", sorted(CASES))
def test_which_reads_are_forwarded(tmp_path, name):
    text, forwarded = CASES[name]
    generated = harness.differentiate_text(tmp_path, name, text, ["--schedule", "split"])
    if name.startswith("copy_2d") or name.startswith("state_"):
        rec = harness.routine_source(generated, "relax_rec")
        assert bool(re.search(r"w\(k, ?j\) = 0\.1_wp \* old\(k, ?j\) \*\* 2", rec)) == forwarded, rec
        return
    rec = harness.routine_source(generated, "step_rec")
    ret = harness.routine_source(generated, "step_ret")
    if "hoist" in name:
        # The Richardson loop reads the copy, made first in its own loop;
        # only the copy is handed over, the diffusivities computed again.
        assert ("(rhs(k) - rhs(k + 1))" in rec) == forwarded, rec
        if forwarded:
            assert re.search(r"do k = 1, n, 1\n\s*rhs\(k\) = t\(k\)\n\s*enddo\n\s*do k = 1, n - 1",
                             rec), rec
            assert rec.count("value_tape(value_tape_top + 1") == 1, rec
            assert "ke(k) = kd / (1.0_wp + 5.0_wp * MAX(ri, 0.0_wp))" in ret, ret
        return
    reads_copy = "(rhs(k) - 270.0_wp)" in rec
    assert reads_copy == forwarded, rec
    if forwarded:
        # The copy first; the state is not taped before the solver; the
        # coefficients are computed again, not handed over: one push.
        body = re.search(r"do k = 1, n, 1\n(.*?)enddo", rec, re.S).group(1)
        assert body.strip().startswith("rhs(k) = t(k)"), rec
        assert rec.count("value_tape(value_tape_top + 1") == 1, rec
        assert "SIZE(rhs)) = rhs" in rec, rec
        assert "kz = kd * (1.0_wp + 1.0e-3_wp * (rhs(k) - 270.0_wp)" in ret, ret
    else:
        assert "(t(k) - 270.0_wp)" in rec, rec
