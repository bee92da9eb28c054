"""Values a routine's loops compute afresh, kept off the tape: neighbour
indices set again in each of several loops (adfort/iterations.py), elements
an elimination updates in place (adfort/fresh_elements.py), the section of
a PARAMETER-sized work array a routine uses (adfort/reach.py), and room
checks that guard no push (adfort/reserves.py).

Each kernel is FD-checked under both schedules; the text checks say which
value left the tape, or must stay on it (a scalar read after its loops, an
update whose partial is not 1, a costly formula)."""

import re

import pytest

import harness

BENCH = harness.REPO_ROOT / "benchmarks"

CASES = {
    # im and ip read after the loops: not computed again there.
    "index_read_after.f90": """\
        ! adfort: routine=smooth dep=cost indep=q0
        ! adfort: init n=7 nt=3 q0=0:1
        module smooth_mod
          implicit none
          integer, parameter :: wp = kind(1.0d0)
        contains
          subroutine smooth(n, nt, q0, cost)
            integer, intent(in) :: n, nt
            real(wp), intent(in) :: q0(n)
            real(wp), intent(out) :: cost
            real(wp) :: q(n), d(n)
            integer :: i, im, ip, it
            q = q0
            do it = 1, nt
              do i = 1, n
                im = max(i - 1, 1)
                ip = min(i + 1, n)
                d(i) = q(ip) - 2.0_wp*q(i) + q(im)
              end do
              do i = 1, n
                im = max(i - 1, 1)
                q(i) = q(i) + 0.2_wp*d(i)*q(im)
              end do
            end do
            cost = sum(q**2) + q(im)*q(ip)
          end subroutine smooth
        end module smooth_mod
    """,
    # In-place updates with a partial other than 1 keep their old values.
    "scaled_in_place.f90": """\
        ! adfort: routine=sweep dep=y indep=a,b
        ! adfort: init n=6 a=0.5:1.5 b=1:2
        subroutine sweep(n, a, b, y)
          implicit none
          integer, intent(in) :: n
          double precision, intent(in) :: a(n)
          double precision, intent(inout) :: b(n)
          double precision, intent(out) :: y
          double precision :: w(50)
          integer :: k
          w(1) = b(1)
          do k = 2, n
            w(k) = b(k)
            b(k) = b(k)*a(k) - 0.3d0*b(k-1)
            b(k) = b(k) - b(k)**2*0.1d0 + w(k)*b(k-1)
          end do
          y = sum(b*w(1:n))
        end subroutine sweep
    """,
    # A costly scalar set in a loop and read by two statements of each
    # iteration: pushed once at the iteration's end, not computed again.
    "costly_scalar.f": """\
C adfort: routine=RATES dep=F indep=X
C adfort: init M=7 X=0.5:1.5
      SUBROUTINE RATES(M, X, F)
      INTEGER M
      DOUBLE PRECISION X(3), F(M, 2)
      INTEGER I
      DOUBLE PRECISION T1, T4
      DO 20 I = 1, M
         T1 = DBLE(I)
         T4 = EXP(X(2)*T1 + X(3))
         F(I,1) = X(1)*T4
         F(I,2) = T1/T4
   20 CONTINUE
      DO 30 I = 1, M
         T1 = DBLE(M - I)
         F(I,1) = F(I,1) + T1*X(1)
   30 CONTINUE
      END
""",
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients(tmp_path, name, schedule):
    harness.check_source(tmp_path, name, CASES[name], schedule)


def _text(tmp_path, name):
    return harness.differentiate_text(tmp_path, name, CASES[name]).lower()


def _split(path, routine, dep, indep):
    from adfort.api import differentiate_file
    from adfort.schedules import SplitReversalSchedule
    return differentiate_file(str(path), dep, indep, SplitReversalSchedule(),
                              routine=routine)[0].lower()


def test_indices_of_several_loops_are_computed_again():
    # swe_step sets im and ip afresh in three loops: no integer tape, and
    # the minmod and face-flux arguments (differences of h, hu, sh, shu at
    # those indices) are computed again too; each loop's check on the room
    # after a call that leaves nothing to push is gone.
    text = _split(BENCH / "swe_muscl.f90", "swe_run", ["cost"], ["h0", "hu0"])
    rec = harness.routine_source(text, "swe_step_rec")
    assert "value_tape_integer" not in text, rec
    pushed = set(re.findall(r"value_tape\(value_tape_top \+ 1\) = (\w+)", rec))
    assert pushed == {"h", "hu"}, rec
    assert "> size(value_tape)" in rec
    second = rec[rec.index("call face_flux_rec"):]
    second = second[:second.index("enddo")]
    assert "size(value_tape)" not in second, second
    ret = harness.routine_source(text, "swe_step_ret")
    assert "im = i - 1" in ret and "ip = i + 1" in ret, ret


def test_read_after_the_loops_is_not_computed_again(tmp_path):
    text = _text(tmp_path, "index_read_after.f90")
    rec = harness.routine_source(text, "smooth_rec")
    # im and ip are read after the loops: their values go on a tape.
    assert re.search(r"value_tape\w*\(value_tape\w*_top \+ 1\) = im\n", rec), rec


def test_in_place_elimination_tapes_no_old_values():
    # soilst: b(k) = b(k) - w*c(k-1) and r(k) = r(k) - w*r(k-1) overwrite
    # values no adjoint reads, and w = a(k)/b(k-1) is computed again; the
    # work arrays of size nmax are handed over as far as they are set.
    text = _split(BENCH / "soil_column_newton.f", "soilrn", ["cost"], ["ts0", "cnd"])
    rec = re.sub(r" ?&\n\s*", " ", harness.routine_source(text, "soilst_rec"))
    loop = rec[rec.index("do k = 2, nz"):]
    loop = loop[:loop.index("enddo")]
    assert "value_tape" not in loop, loop
    assert re.search(r"= b\(:min\(nmax, max\(nz, 1\)\)\)", rec), rec
    assert "= b\n" not in rec and "= r\n" not in rec, rec
    ret = harness.routine_source(text, "soilst_ret")
    assert re.search(r"w = a\(k\) / b\(k - 1\)", ret), ret


def test_update_with_other_partial_keeps_the_old_value(tmp_path):
    text = _text(tmp_path, "scaled_in_place.f90")
    rec = harness.routine_source(text, "sweep_rec")
    assert rec.count("value_tape(value_tape_top + 1) = b(k)") == 2, rec


def test_costly_scalar_is_pushed_once_per_iteration(tmp_path):
    text = _text(tmp_path, "costly_scalar.f")
    rec = harness.routine_source(text, "rates_rec")
    loop = rec[rec.index("t4 = "):]
    loop = loop[:loop.index("enddo")]
    assert re.search(r"f\(i,2\) = .*\n\s*value_tape\(value_tape_top \+ 1\) = t4\n", loop), loop
    assert rec.count("= t4\n") == 1, rec
    # t1, set afresh in both loops, is computed again in both.
    assert not re.search(r"value_tape\(value_tape_top \+ 1\) = t1", rec), rec
