"""Calls r_rev leaves to their reversal (adfort/deferral.py): a joint
callee whose results only the routine's own results take is not run
forward in r_rev; its f_rev delivers them.  Each case is checked against
finite differences under both schedules, with r_rev's primal results
compared to r's; the text checks say whether the call was deferred."""

import re
import shutil

import pytest

import harness

needs_gfortran = pytest.mark.skipif(shutil.which("gfortran") is None, reason="no gfortran")

POINT = """\
          subroutine point(p, t, q, te, tw)
            real(dp), intent(in) :: p, t, q
            real(dp), intent(out) :: te, tw
            real(dp) :: e, es, rh
            e = q*p/(0.622_dp + 0.378_dp*q)
            es = 6.112_dp*exp(17.67_dp*(t - 273.15_dp)/(t - 29.65_dp))
            rh = e/es
            te = t*(1000.0_dp/(p - e))**0.2854_dp*exp(2.5_dp*rh)
            tw = t - 5.0_dp*sqrt(1.0_dp - min(rh, 0.99_dp))
          end subroutine point
"""

# (source, whether the column routine's r_rev defers the call under the
# joint schedule, under the split schedule: a split link needs its inputs
# unchanged, and columns_deferred overwrites tt and ww after the call)
CASES = {
    # Per level, results only (the moist_thermo benchmark's shape).
    "levels_deferred.f90": ("""\
        ! adfort: routine=column dep=te,tw indep=t,q
        ! adfort: init n=9 p=300:1000 t=260:300 q=0.002:0.012
        module levels_deferred
          implicit none
          integer, parameter :: dp = kind(1.0d0)
        contains
        """ + POINT + """\
          subroutine column(n, p, t, q, te, tw)
            integer, intent(in) :: n
            real(dp), intent(in) :: p(n), t(n), q(n)
            real(dp), intent(out) :: te(n), tw(n)
            integer :: k
            do k = 1, n
              call point(p(k), t(k), q(k), te(k), tw(k))
            end do
          end subroutine column
        end module levels_deferred
        """, True, True),
    # Columns of a 2-D field, inputs computed by the caller and then
    # overwritten (put back for f_rev), nested loops, sections.
    "columns_deferred.f90": ("""\
        ! adfort: routine=physics dep=tend indep=t,w
        ! adfort: init ni=4 nk=6 t=260:300 w=0.5:1.5
        module columns_deferred
          implicit none
          integer, parameter :: dp = kind(1.0d0)
        contains
          subroutine col(nk, tc, wc, out)
            integer, intent(in) :: nk
            real(dp), intent(in) :: tc(nk), wc
            real(dp), intent(out) :: out(nk)
            real(dp) :: acc(nk), s
            integer :: k
            s = 0.0_dp
            do k = 1, nk
              s = s + wc*tc(k)
              acc(k) = s
            end do
            do k = 1, nk
              acc(k) = acc(k)*tc(k)/(1.0_dp + acc(k)**2)
              out(k) = sqrt(acc(k)) + log(tc(k))
            end do
          end subroutine col
          subroutine physics(ni, nk, t, w, tend)
            integer, intent(in) :: ni, nk
            real(dp), intent(in) :: t(nk, ni), w(ni)
            real(dp), intent(out) :: tend(nk, ni, 2)
            real(dp) :: tt(nk), ww
            integer :: i, m
            do m = 1, 2
              do i = 1, ni
                tt = t(:, i) + 0.5_dp*m
                ww = w(i)*m
                call col(nk, tt, ww, tend(:, i, m))
                tt = 0.0_dp
                ww = -1.0_dp
              end do
            end do
          end subroutine physics
        end module columns_deferred
        """, True, False),
    # The callee overwrites its result with a value its adjoint needs: f_ret
    # puts the first value back, so f_rev keeps a copy of the result it
    # computed and gives it back last.
    "result_restored.f90": ("""\
        ! adfort: routine=column dep=y indep=x
        ! adfort: init n=7 x=0.5:1.5
        module result_restored
          implicit none
          integer, parameter :: dp = kind(1.0d0)
        contains
          subroutine sq(a, b)
            real(dp), intent(in) :: a
            real(dp), intent(out) :: b
            b = sin(a) + 2.0_dp
            b = b**2
          end subroutine sq
          subroutine column(n, x, y)
            integer, intent(in) :: n
            real(dp), intent(in) :: x(n)
            real(dp), intent(out) :: y(n)
            integer :: k
            do k = 1, n
              call sq(x(k), y(k))
            end do
          end subroutine column
        end module result_restored
        """, True, True),
    # The state updated in place, level by level (intent(inout)), by an
    # adjustment that overwrites what its adjoint reads: f_rev runs from
    # the level's input values, which nothing else changes, and leaves the
    # adjusted ones.
    "state_in_place.f90": ("""\
        ! adfort: routine=column dep=t,q indep=t,q,p
        ! adfort: init n=8 p=500:1000 t=270:300 q=0.004:0.02
        module state_in_place
          implicit none
          integer, parameter :: dp = kind(1.0d0)
        contains
          subroutine adjust(p, t, q)
            real(dp), intent(in) :: p
            real(dp), intent(inout) :: t, q
            real(dp) :: qs, dq
            integer :: iter
            do iter = 1, 2
              qs = 0.622_dp*6.112_dp*exp(17.67_dp*(t - 273.15_dp)/(t - 29.65_dp))/p
              dq = (q - qs)/(1.0_dp + 5.4e3_dp*qs/t**2)
              dq = max(dq, -q)
              t = t + 2.5e3_dp*dq
              q = q - dq
            end do
          end subroutine adjust
          subroutine column(n, p, t, q)
            integer, intent(in) :: n
            real(dp), intent(in) :: p(n)
            real(dp), intent(inout) :: t(n), q(n)
            integer :: k
            do k = 1, n
              call adjust(p(k), t(k), q(k))
            end do
          end subroutine column
        end module state_in_place
        """, True, True),
    # The same, with the column's state read again after the loop: the
    # call must run forward.
    "state_read_after.f90": ("""\
        ! adfort: routine=column dep=t,q,tmean indep=t,q
        ! adfort: init n=6 p=500:1000 t=270:300 q=0.004:0.02
        module state_read_after
          implicit none
          integer, parameter :: dp = kind(1.0d0)
        contains
          subroutine adjust(p, t, q)
            real(dp), intent(in) :: p
            real(dp), intent(inout) :: t, q
            real(dp) :: qs, dq
            qs = 0.622_dp*6.112_dp*exp(17.67_dp*(t - 273.15_dp)/(t - 29.65_dp))/p
            dq = (q - qs)/(1.0_dp + 5.4e3_dp*qs/t**2)
            t = t + 2.5e3_dp*dq
            q = q - dq
          end subroutine adjust
          subroutine column(n, p, t, q, tmean)
            integer, intent(in) :: n
            real(dp), intent(in) :: p(n)
            real(dp), intent(inout) :: t(n), q(n)
            real(dp), intent(out) :: tmean
            integer :: k
            do k = 1, n
              call adjust(p(k), t(k), q(k))
            end do
            tmean = sum(t)/n
          end subroutine column
        end module state_read_after
        """, False, False),
    # The same callee also called on locals whose values before the call
    # an adjoint reads: its f_rev now gives back its results there too,
    # and the caller puts back its own saves after it.  (The second call
    # runs forward in r_rev, so the text check counts the case as not
    # deferred; under split neither is: p goes to both calls.)
    "shared_callee.f90": ("""\
        ! adfort: routine=column dep=t,q,s indep=t,q,s,p
        ! adfort: init n=6 p=500:1000 t=270:300 q=0.004:0.02 s=0.5:1.5
        module hazard
          implicit none
          integer, parameter :: dp = kind(1.0d0)
        contains
          subroutine adjust(p, t, q)
            real(dp), intent(in) :: p
            real(dp), intent(inout) :: t, q
            real(dp) :: qs, dq
            qs = 0.622_dp*6.112_dp*exp(17.67_dp*(t - 273.15_dp)/(t - 29.65_dp))/p
            dq = (q - qs)/(1.0_dp + 5.4e3_dp*qs/t**2)
            t = t + 2.5e3_dp*dq*q
            q = q - dq*t/300.0_dp
          end subroutine adjust
          subroutine column(n, p, t, q, s)
            integer, intent(in) :: n
            real(dp), intent(in) :: p(n)
            real(dp), intent(inout) :: t(n), q(n), s(4)
            real(dp) :: w, r
            integer :: k
            do k = 1, n
              call adjust(p(k), t(k), q(k))
            end do
            w = 280.0_dp + s(1)
            r = 0.01_dp*s(2)
            s(4) = w**2*r
            call adjust(p(1), w, r)
            s(3) = w*r**2
          end subroutine column
        end module hazard
        """, False, False),
    # The results are read again (a column sum): the call must run forward.
    "results_read.f90": ("""\
        ! adfort: routine=column dep=te,tot indep=t,q
        ! adfort: init n=6 p=300:1000 t=260:300 q=0.002:0.012
        module results_read
          implicit none
          integer, parameter :: dp = kind(1.0d0)
        contains
        """ + POINT + """\
          subroutine column(n, p, t, q, te, tw, tot)
            integer, intent(in) :: n
            real(dp), intent(in) :: p(n), t(n), q(n)
            real(dp), intent(out) :: te(n), tw(n), tot
            integer :: k
            do k = 1, n
              call point(p(k), t(k), q(k), te(k), tw(k))
            end do
            tot = sum(tw*q)
          end subroutine column
        end module results_read
        """, False, False),
    # Every iteration writes the same element: the reversal, backwards,
    # would leave the first iteration's value.
    "same_element.f90": ("""\
        ! adfort: routine=column dep=te,tw indep=t
        ! adfort: init n=5 p=300:1000 t=260:300 q=0.002:0.012
        module same_element
          implicit none
          integer, parameter :: dp = kind(1.0d0)
        contains
        """ + POINT + """\
          subroutine column(n, p, t, q, te, tw)
            integer, intent(in) :: n
            real(dp), intent(in) :: p(n), t(n), q(n)
            real(dp), intent(out) :: te(1), tw(1)
            integer :: k
            do k = 1, n
              call point(p(k), t(k), q(k), te(1), tw(1))
            end do
          end subroutine column
        end module same_element
        """, False, False),
}


def _rev_body(text, routine):
    found = harness.routine_source(text, f"{routine}_rev")
    assert found, f"no {routine}_rev in the output"
    # With automatic arrays, r_rev hands a buffer to the routine doing the work.
    return found + (harness.routine_source(text, f"{routine}_rev_body") or "")


@needs_gfortran
@pytest.mark.parametrize("schedule", ["joint", "split"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_deferred_calls_give_the_gradient_and_results(tmp_path, name, schedule):
    harness.check_source(tmp_path, name, CASES[name][0], schedule)


@pytest.mark.parametrize("schedule", ["joint", "split"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_which_calls_are_deferred(tmp_path, name, schedule):
    text, joint, split = CASES[name]
    deferred = joint if schedule == "joint" else split
    generated = harness.differentiate_text(tmp_path, name, text, ["--schedule", schedule])
    meta = harness.parse_metadata(tmp_path / name)
    rev = _rev_body(generated, meta.routine)
    # r_rev runs its recording inline (or calls r_rec, when that measures
    # assumed-size arguments): a deferred call is not run forward there
    # (neither the primal call nor its recording motion).
    forward = re.search(rf"call ((point|col|sq|adjust)(_rec)?|{meta.routine}_rec)\(", rev)
    assert (forward is None) == deferred, rev
    if deferred:
        # Nor copies of the results it delivers.
        assert "_out" not in rev, rev


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_deferred_call_given_a_hoisted_argument(schedule, tmp_path):
    """``call fill(n, a*b, y)`` with a linear ``fill``: r_rev defers the
    call to f_rev in r_ret_given, which ran fill again on its own,
    uninitialised copy of the hoisted argument (y wrong, primal error 1)."""
    harness.check_source(tmp_path, "k.f90", """\
        ! adfort: routine=r dep=y indep=a,b
        ! adfort: init n=4 a=0.5:2 b=0.5:2
        module mean_mod
          implicit none
        contains
          subroutine fill(n, v, s)
            real(8), intent(out) :: s
            integer, intent(in) :: n
            real(8), intent(in) :: v(n)
            s = sum(v)/n
          end subroutine fill
        end module mean_mod
        subroutine r(n, a, b, y)
          use mean_mod
          implicit none
          integer, intent(in) :: n
          real(8), intent(in) :: a(n), b(n)
          real(8), intent(out) :: y
          call fill(n, a*b, y)
        end subroutine r
        """, schedule)
