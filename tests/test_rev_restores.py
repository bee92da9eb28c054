"""A joint call's snapshot is popped, not kept, when the callee's f_rev
leaves the values it was given back as it found them
(adfort/taping.py ``restored_on_return`` with the statements its re-run
leaves out; adfort/transformations/call.py ``_left_by_rev``): the caller
need not put them back a second time, and f_rev's own tape starts where
the snapshot was, as Tapenade's does.  Checked against finite differences
under both schedules; the text checks say where the snapshot is read."""

import shutil

import pytest

import harness
from test_copy_forwarding import _SOLVER

needs_gfortran = pytest.mark.skipif(shutil.which("gfortran") is None, reason="no gfortran")

_STEP = """\
        ! adfort: routine=run dep=cost indep=q,c
        ! adfort: init n=12 nt=4 q=0.5:1.5 c=0.1:0.3
        module lw_model
          implicit none
          integer, parameter :: wp = kind(1.0d0)
        contains
          subroutine step(n, c, q{extra_args})
            integer, intent(in) :: n
            real(wp), intent(in) :: c
            real(wp), intent(inout) :: q(n){extra_decl}
            real(wp) :: f(0:n)
            integer :: i
            do i = 1, n - 1
              f(i) = 0.5_wp*c*(q(i) + q(i+1)) - 0.5_wp*c**2*(q(i+1) - q(i))*q(i)
            end do
            f(0) = 0.0_wp
            f(n) = 0.0_wp
            do i = 1, n
              q(i) = q(i) - (f(i) - f(i-1))
            end do{extra_body}
          end subroutine step

          subroutine run(n, nt, c, q, cost)
            integer, intent(in) :: n, nt
            real(wp), intent(in) :: c
            real(wp), intent(inout) :: q(n)
            real(wp), intent(out) :: cost
            real(wp) :: s
            integer :: it
            cost = 0.0_wp
            do it = 1, nt
              ! a misfit each step, of the state before the step
              cost = cost + sum(q**3)
              call step(n, c, q{extra_actuals})
              {extra_after}
            end do
          end subroutine run
        end module lw_model
        """

# A column solved implicitly, the state copied into the right-hand side:
# step_rev re-runs the coefficients from the copy and leaves the solver's
# forward run out, but the solver's own f_rev still writes the state: the
# caller must put it back after step_rev (a bug once: the gradient was off
# by 0.7 % under joint).
_SOLVER_STEP = """\
        ! adfort: routine=run dep=cost indep=q,c
        ! adfort: init n=9 nt=3 q=260:300 c=0.5:2
        module lw_model
          implicit none
          integer, parameter :: wp = kind(1.0d0)
        contains
{solver}
          subroutine step(n, c, q)
            integer, intent(in) :: n
            real(wp), intent(in) :: c
            real(wp), intent(inout) :: q(n)
            real(wp) :: a(n), b(n), cc(n), rhs(n), kz
            integer :: k
            do k = 1, n
              kz = 0.05_wp*c*(1.0_wp + 1.0e-3_wp*(q(k) - 270.0_wp)**2)
              a(k) = -kz
              cc(k) = -kz
              if (k == 1) a(k) = 0.0_wp
              if (k == n) cc(k) = 0.0_wp
              b(k) = 1.0_wp - a(k) - cc(k)
              rhs(k) = q(k)
            end do
            call tridiag(n, a, b, cc, rhs, q)
          end subroutine step

          subroutine run(n, nt, c, q, cost)
            integer, intent(in) :: n, nt
            real(wp), intent(in) :: c
            real(wp), intent(inout) :: q(n)
            real(wp), intent(out) :: cost
            integer :: it
            cost = 0.0_wp
            do it = 1, nt
              cost = cost + sum((q/280.0_wp)**3)
              call step(n, c, q)
            end do
          end subroutine run
        end module lw_model
        """.format(solver=_SOLVER)

CASES = {
    "solver_changes_q.f90": (_SOLVER_STEP, False),
    "step_restores_q.f90": (_STEP.format(
        extra_args=", e", extra_decl="\n            real(wp), intent(out) :: e",
        extra_body="\n            e = sum(q**2)", extra_actuals=", s",
        extra_after="cost = cost + s"), True),
    # f_rev's re-run leaves the update of q out (its adjoint reads no q):
    # q comes back from step_rev as it went in.  (With the energy of the
    # updated q returned too, the update runs, but its overwrite is taped
    # for the fluxes' adjoints, which read the old q: q comes back too.)
    "step_left_alone.f90": (_STEP.format(extra_args="", extra_decl="", extra_body="",
                                         extra_actuals="", extra_after=""), True),
    # Linear fluxes (c passive); the updated q is read by the energy the step also
    # returns: f_rev runs the update, and nothing puts q back (no adjoint
    # reads its old value): the caller must restore q after step_rev.
    "step_changes_q.f90": (_STEP.replace(" - 0.5_wp*c**2*(q(i+1) - q(i))*q(i)", "").replace(
        "indep=q,c", "indep=q").format(
        extra_args=", e", extra_decl="\n            real(wp), intent(out) :: e",
        extra_body="\n            e = sum(q**2)", extra_actuals=", s",
        extra_after="cost = cost + s"), False),
}


@needs_gfortran
@pytest.mark.parametrize("schedule", ["joint", "split"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_snapshots_popped_before_f_rev_give_the_gradient(tmp_path, name, schedule):
    harness.check_source(tmp_path, name, CASES[name][0], schedule)


@pytest.mark.parametrize("name", sorted(CASES))
def test_where_the_snapshot_is_read(tmp_path, name):
    text, popped = CASES[name]
    generated = harness.differentiate_text(tmp_path, name, text,
                                           ["--schedule", "joint", "--no-split-tapeless"])
    ret = harness.routine_source(generated, "run_ret_given") or \
        harness.routine_source(generated, "run_ret")
    loop = ret[ret.index("do it = nt"):]
    before, after = loop.split("call step_rev", 1)
    after = after[:after.index("enddo")]
    # Popped before step_rev either way; kept on the tape (the pop undone)
    # and read again after it only when step_rev changes q.
    assert "q = value_tape(" in before or "value_tape_get(q" in before, ret
    kept = "value_tape_top = value_tape_top + SIZE(q)" in before
    assert kept == (not popped), ret
    assert (("q = value_tape(" in after) or ("value_tape_get(q" in after)) == (not popped), ret
