"""r_rev reverses a last loop of independent iterations block by block
(adfort/iteration_reversal.py): a block's recording, then its returning
motion, blocks in the loop's own order.  Checked against finite
differences under both schedules at 600 points (several blocks, the last
one partial; the harness also compares r_rev's primal results with r's);
the text checks say which loops are reversed so and which are not (a
carried value, a sum read elsewhere, a neighbour read, an argument the
returning motion puts back, a result given to the call).  Each negative
case gives a wrong gradient when forced through."""

import re
import shutil

import pytest

import harness

needs_gfortran = pytest.mark.skipif(shutil.which("gfortran") is None, reason="no gfortran")

_POINT = """\
          subroutine point(t, q, y)
            real(wp), intent(in) :: t, q
            real(wp), intent(out) :: y
            real(wp) :: e
            e = q/(1.0_wp - q)
            y = t*exp(0.3_wp*e) + log(t)*e
          end subroutine point
"""

_TEMPLATE = """\
        ! adfort: routine=top dep={dep} indep=t,q
        ! adfort: init n={n} t=250:300 q=0.01:0.2 obs=1:2 w=0.5:1.5
        module pts
          implicit none
          integer, parameter :: wp = kind(1.0d0)
        contains
{point}
          subroutine top(n, t, q, obs, w, {args})
            integer, intent(in) :: n
            real(wp), intent(in) :: obs(n), w(n)
            real(wp), intent({t_intent}) :: t(n)
            real(wp), intent(in) :: q(n)
            {decls}
            real(wp) :: y, d, s
            integer :: i
            cost = 0.0_wp
{body}
          end subroutine top
        end module pts
        """


def _case(body, args="cost", decls="real(wp), intent(out) :: cost", dep="cost",
          t_intent="in", n=600):
    return _TEMPLATE.format(point=_POINT, args=args, decls=decls, dep=dep, body=body,
                            t_intent=t_intent, n=n)


CASES = {
    # The misfit of a point formula: fused.
    "misfit.f90": (_case("""\
            do i = 1, n
              call point(t(i), q(i), y)
              d = y/300.0_wp - obs(i)
              cost = cost + w(i)*d**2
            end do"""), True),
    # A result per point as well as the sum, a sum written as e + s and
    # one subtracted, a branch and an inner loop: fused.
    "results_and_sums.f90": (_case("""\
            s = 0.0_wp
            do i = 1, n
              call point(t(i), q(i), y)
              d = y/300.0_wp
              if (d > obs(i)) then
                d = d**2
              else
                d = sqrt(d)
              end if
              ye(i) = d*q(i)
              cost = w(i)*d*q(i)**2 + cost
              cost = cost - 0.1_wp*d*q(i)**2
            end do""", args="ye, cost",
        decls="real(wp), intent(out) :: ye(n), cost", dep="ye,cost"), True),
    # More points than a block (256), the last block partial, and the
    # points taken backwards.
    "blocks.f90": (_case("""\
            do i = 1, n
              call point(t(i), q(i), y)
              d = y/300.0_wp - obs(i)
              cost = cost + w(i)*d**2
            end do""", n=600), True),
    "blocks_backwards.f90": (_case("""\
            do i = n, 1, -1
              call point(t(i), q(i), y)
              d = y/300.0_wp - obs(i)
              cost = cost + w(i)*d**2
            end do""", n=600), True),
    # A local set in both branches of an IF first: fused.  Set in one
    # branch only, it carries the last point's value into the next: not.
    "set_in_branches.f90": (_case("""\
            do i = 1, n
              if (t(i) > 275.0_wp) then
                d = log(t(i)/275.0_wp)
              else
                d = 0.5_wp*(t(i)/275.0_wp - 1.0_wp)
              end if
              call point(t(i), q(i), y)
              cost = cost + w(i)*(y/300.0_wp + d)**2
            end do"""), True),
    "set_in_one_branch.f90": (_case("""\
            d = 0.0_wp
            do i = 1, n
              if (t(i) > 275.0_wp) then
                d = log(t(i)/275.0_wp)
              end if
              call point(t(i), q(i), y)
              cost = cost + w(i)*(y/300.0_wp + d)**2
            end do"""), False),
    # A result per point read back by the sum: each iteration writes its
    # own element, which the call cannot reach, so its old value is not
    # taped (adfort/fresh_elements.py) and nothing is put back: fused.
    "result_read_back.f90": (_case("""\
            do i = 1, n
              call point(t(i), q(i), y)
              ye(i) = y/300.0_wp*q(i)
              cost = cost + w(i)*ye(i)**2
            end do""", args="ye, cost",
        decls="real(wp), intent(out) :: ye(n), cost", dep="ye,cost"), True),
    # The same result given to the call as well: the call could read any
    # element, so the old values are taped and put back: not fused.
    "result_given_to_call.f90": (_case("""\
            do i = 1, n
              call point(t(i), q(i), ye(i))
              ye(i) = ye(i)/300.0_wp*q(i)
              cost = cost + w(i)*ye(i)**2
            end do""", args="ye, cost",
        decls="real(wp), intent(out) :: ye(n), cost", dep="ye,cost"), False),
    # A value carried from one point to the next: not fused.
    "carried.f90": (_case("""\
            y = 0.0_wp
            do i = 1, n
              d = y
              call point(t(i), q(i), y)
              cost = cost + w(i)*(y - d)**2
            end do"""), False),
    # The sum read in the loop besides its update: not fused.
    "sum_read.f90": (_case("""\
            do i = 1, n
              call point(t(i), q(i), y)
              cost = cost + w(i)*y*1.0e-3_wp + 1.0e-6_wp*cost**2
            end do"""), False),
    # A neighbour's element read: not fused.
    "neighbour.f90": (_case("""\
            do i = 2, n
              call point(t(i), q(i), y)
              t(i) = 0.5_wp*(t(i-1) + y/300.0_wp)
              cost = cost + w(i)*t(i)**2
            end do""", t_intent="inout", dep="cost,t"), False),
    # An argument updated in place whose old value the adjoint reads: the
    # returning motion would put it back, so r_rev would return the old
    # value: not fused.
    "restored_argument.f90": (_case("""\
            do i = 1, n
              call point(t(i), q(i), y)
              t(i) = t(i)*y/300.0_wp
              cost = cost + w(i)*t(i)**2
            end do""", t_intent="inout", dep="cost,t"), False),
}


def _fused(generated):
    """Whether top_rev reverses its point loop by blocks of iterations (a
    block's recording, then its returning motion, inside one loop over the
    blocks)."""
    rev = harness.routine_source(generated, "top_rev")
    match = re.search(r"\n(\s*)do i_first = .*?\n\1enddo", rev, re.S)
    if not match:
        return False
    block = match.group(0)
    return ("call point_rec" in block or "call point(" in block) and \
        re.search(r"call point_re[tv]", block) is not None


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_which_loops_are_reversed_by_iteration(tmp_path, name, schedule):
    text, fused = CASES[name]
    generated = harness.differentiate_text(tmp_path, name, text, ["--schedule", schedule])
    rev = harness.routine_source(generated, "top_rev")
    assert _fused(generated) == fused, rev
    if fused:
        # A block's room on the tape, none for all n.
        assert "n - 1 + 1" not in rev, rev


@needs_gfortran
@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_iterations_reversed_by_blocks_give_the_gradient(tmp_path, name, schedule):
    harness.check_source(tmp_path, name, CASES[name][0], schedule)


def test_no_iteration_reversal_keeps_the_whole_loop_reversal(tmp_path):
    text = CASES["misfit.f90"][0]
    on = harness.differentiate_text(tmp_path, "on.f90", text)
    off = harness.differentiate_text(tmp_path, "off.f90", text, ["--no-iteration-reversal"])
    assert _fused(on) and not _fused(off), harness.routine_source(off, "top_rev")
    # r_rec and r_ret are the same either way.
    for name in ("top_rec", "top_ret"):
        assert harness.routine_source(on, name) == harness.routine_source(off, name)
