"""Values a routine's loops compute afresh, kept off the tape: neighbour
indices set again in each of several loops (adfort/iterations.py), elements
an elimination updates in place (adfort/fresh_elements.py), the section of
a PARAMETER-sized work array a routine uses (adfort/reach.py), room checks
that guard no push (adfort/reserves.py), scalars computed again where their
last reader is reversed (adfort/late_values.py), and the last index of a
loop with a literal step (adfort/recompute.py).

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
    # Loops with literal steps other than 1, one of them running no
    # iteration: reversed from their last index value, no trip count taped.
    "strided_loops.f90": """\
        ! adfort: routine=strided dep=cost indep=u,c
        ! adfort: init n=11 m=0 u=-1:1 c=0.5:1.5
        subroutine strided(n, m, u, c, cost)
          implicit none
          integer, intent(in) :: n, m
          double precision, intent(inout) :: u(n)
          double precision, intent(in) :: c(n)
          double precision, intent(out) :: cost
          integer :: i
          do i = 2, n, 3
            u(i) = u(i)*c(i) + u(i-1)**2
          end do
          do i = n, 1, -2
            u(i) = sin(u(i)) + c(i)*u(max(i - 1, 1))
          end do
          do i = 5, m, 2
            u(i) = u(i)**3
          end do
          cost = 0.0d0
          do i = 1, n, 4
            cost = cost + u(i)**2*c(i)
          end do
        end subroutine strided
    """,
    # Monin-Obukhov iterations: rl reads tstar and ustar, which the
    # iteration changes after it; computed again before zl's reversal.
    "stability_iterations.f90": """\
        ! adfort: routine=mo_point dep=tau,hflx indep=u,ts,ta
        ! adfort: init z=10.0 z0=0.05 u=3:6 ts=285:290 ta=290:295
        subroutine mo_point(z, z0, u, ts, ta, tau, hflx)
          implicit none
          double precision, intent(in) :: z, z0, u, ts, ta
          double precision, intent(out) :: tau, hflx
          double precision :: ustar, tstar, zl, psim, psih, x, rl, lnz
          integer :: iter
          lnz = log(z/z0)
          ustar = 0.4d0*u/lnz
          tstar = 0.4d0*(ta - ts)/lnz
          do iter = 1, 3
            rl = 0.4d0*9.81d0*tstar/(ta*ustar**2)
            zl = max(min(z*rl, 5.0d0), -10.0d0)
            if (zl >= 0.0d0) then
              psim = -5.0d0*zl
              psih = -5.0d0*zl
            else
              x = sqrt(sqrt(1.0d0 - 16.0d0*zl))
              psim = 2.0d0*log((1.0d0 + x)/2.0d0) + log((1.0d0 + x*x)/2.0d0) &
                     - 2.0d0*atan(x)
              psih = 2.0d0*log((1.0d0 + x*x)/2.0d0)
            end if
            ustar = 0.4d0*u/(lnz - psim)
            tstar = 0.4d0*(ta - ts)/(lnz - psih)
          end do
          tau = 1.2d0*ustar**2
          hflx = -1.2d0*1004.0d0*ustar*tstar
        end subroutine mo_point
    """,
    # a is updated (a = max(a, 0.3)) and c reads the updated value: c may
    # not be computed again from a's first value (a computed late up to
    # c's last reader would give the first one: a wrong gradient).
    "late_update_read.f90": """\
        ! adfort: routine=lu dep=y indep=x,z
        ! adfort: init n=6 x=0.1:1 z=0.5:1.5 y0=0:1
        subroutine lu(n, x, z, y0, y)
          implicit none
          integer, intent(in) :: n
          double precision, intent(in) :: x(n), z(n), y0(n)
          double precision, intent(out) :: y(n)
          double precision :: a, b, c
          integer :: i
          do i = 1, n
            a = x(i)*z(i)
            b = a*a
            a = max(a, 0.3d0)
            c = a + z(i)
            y(i) = c*c + b*y0(i)
          end do
        end subroutine lu
    """,
    # q updated (min), read by u, then q set again for another value.
    "update_then_other_value.f90": """\
        ! adfort: routine=adv2 dep=y indep=x,w
        ! adfort: init n=7 x=0.1:1 w=0.5:1.5
        subroutine adv2(n, x, w, y)
          implicit none
          integer, intent(in) :: n
          double precision, intent(in) :: w(n)
          double precision, intent(inout) :: x(n)
          double precision, intent(out) :: y
          double precision :: q, t, u
          integer :: i
          y = 0.0d0
          do i = 2, n
            q = x(i-1)*w(i)
            t = q*q
            q = min(q, 0.4d0)
            u = q*t
            x(i) = x(i) + u
            q = x(i)*0.5d0
            y = y + q*q*u
          end do
        end subroutine adv2
    """,
    # v holds two values in an iteration; the second is updated (max).
    "name_for_two_values.f90": """\
        ! adfort: routine=adv4 dep=y indep=x
        ! adfort: init n=6 x=0.1:1
        subroutine adv4(n, x, y)
          implicit none
          integer, intent(in) :: n
          double precision, intent(in) :: x(n)
          double precision, intent(out) :: y(n)
          double precision :: v, y1, z
          integer :: i
          do i = 1, n
            v = x(i)*x(i)
            y1 = v*v
            v = x(i) + 2.0d0
            z = v*v
            v = max(v, 2.5d0)
            y(i) = z + v + y1*v
          end do
        end subroutine adv4
    """,
    # Two loops overwriting a(0:n) twice per iteration (one backwards), inside a loop.
    "snapshot_offsets_lower_bound.f90": """\
        ! adfort: routine=adv6 dep=y indep=a,w
        ! adfort: init n=7 m=1 a=0.1:1 w=0.5:1.5
        subroutine adv6(n, m, a, w, y)
          implicit none
          integer, intent(in) :: n, m
          double precision, intent(inout) :: a(0:n)
          double precision, intent(in) :: w(n)
          double precision, intent(out) :: y
          double precision :: y1
          integer :: i, it
          y = 0.0d0
          do it = 1, 2
            y1 = sum(a**2)
            do i = m, n - 1
              a(i) = a(i) + w(i)*y1
              a(i+1) = a(i+1) - 0.5d0*w(i)
            end do
            do i = n - 1, m + 5, -1
              a(i) = a(i) * 0.9d0
              a(i-1) = a(i-1) + 0.1d0*w(i)
            end do
            y = y + y1*sum(a*a)
          end do
        end subroutine adv6
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


def _split(path, routine, dep, indep, options=None):
    from adfort.api import differentiate_file
    from adfort.schedules import SplitReversalSchedule
    return differentiate_file(str(path), dep, indep, SplitReversalSchedule(),
                              routine=routine, options=options)[0].lower()


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


def test_literal_steps_are_reversed_without_trip_counts(tmp_path):
    text = _text(tmp_path, "strided_loops.f90")
    rec = harness.routine_source(text, "strided_rec")
    assert "control_tape" not in rec, rec
    ret = harness.routine_source(text, "strided_ret")
    assert "do i = 2 + ((n + 1) / 3 - 1) * 3, 2, -3" in ret, ret
    assert "do i = 5 + ((m - 3) / 2 - 1) * 2, 5, -2" in ret, ret


def test_value_read_before_its_inputs_change_is_computed_again_late(tmp_path):
    text = _text(tmp_path, "stability_iterations.f90")
    rec = harness.routine_source(text, "mo_point_rec")
    assert not re.search(r"value_tape\w*\([^)]*\) = rl\n", rec), rec
    ret = harness.routine_source(text, "mo_point_ret")
    again = ret.index("rl = 0.4d0 * 9.81d0 * tstar")
    assert again < ret.index("rl_adj =") and ret.index("ustar = value_tape") < again, ret


def _joint(path, routine, dep, indep):
    from adfort.api import differentiate_file
    from adfort.schedules import JointReversalSchedule
    return differentiate_file(str(path), dep, indep, JointReversalSchedule(),
                              routine=routine)[0].lower()


def test_joint_caller_saves_no_input_a_linear_callee_never_reads():
    # sor_solve's adjoint is linear in p: its f_rev runs nothing of it again
    # and never names p, so sor_run keeps no copy of p around the call
    # (its own adjoint reads f, pushed element by element).
    path = harness.REPO_ROOT / "tests" / "fortran_fixtures" / "sor_poisson.f90"
    text = _joint(path, "sor_run", ["cost"], ["f0", "kap"])
    rec = harness.routine_source(text, "sor_run_rec")
    pushed = re.findall(r"value_tape\([^\n]*\) = (\w+)", rec)
    assert "p" not in pushed[:-1] and "f" in pushed, rec
    rev = harness.routine_source(text, "sor_solve_rev")
    assert not re.search(r"\bp\(", rev.split("\n\n", 1)[1]), rev


WALLS = """\
module walls
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine stepu(n, u)
    integer, intent(in) :: n
    real(wp), intent(inout) :: u(n)
    integer :: i
    do i = 2, n - 1
      u(i) = u(i) + 0.1_wp*u(i)*(u(i+1) - u(i-1))
    end do
  end subroutine stepu

  subroutine wall(n, u)
    integer, intent(in) :: n
    real(wp), intent(inout) :: u(n)
    integer :: m
    m = mod(n, 3) + 1
    u(m) = 0.5_wp*u(m)
  end subroutine wall

  subroutine run(n, nt, u, cost)
    integer, intent(in) :: n, nt
    real(wp), intent(inout) :: u(n)
    real(wp), intent(out) :: cost
    integer :: it
    do it = 1, nt
      call stepu(n, u)
      call wall(n, u)
    end do
    cost = sum(u**2)
  end subroutine run
end module walls
"""


def test_whole_save_around_a_call_ends_the_need_for_older_values(tmp_path):
    # wall overwrites u (at a subscript it computes: any element) after
    # stepu, whose returning motion reads u as stepu left it: saved whole
    # around wall, u needs no saving around the next step's stepu (the
    # adjoints before it have their values back already).
    path = tmp_path / "walls.f90"
    path.write_text(WALLS)
    text = _split(path, "run", ["cost"], ["u"])
    rec = harness.routine_source(text, "run_rec")
    loop = rec[rec.index("do it = 1"):]
    loop = loop[:loop.index("enddo")]
    assert re.findall(r"value_tape\([^\n]*\) = (\w+\b(?!\())", loop) == ["u"], loop
    assert loop.index("= u\n") > loop.index("call stepu_rec"), loop


def test_walls_save_their_edges_and_the_step_its_section():
    # swwall sets the edges of u and v, swstep their interiors: each call
    # is saved around on what it changes, not u and v whole
    # (adfort/sections.py).
    text = _split(BENCH / "sw_cgrid_walls.f", "swrun", ["cost"], ["h0", "depth"])
    rec = harness.routine_source(text, "swrun_rec")
    loop = rec[rec.index("do it = 1"):]
    loop = loop[:loop.index("enddo")]
    saved = re.findall(r"value_tape_put\((\w+\([^;]*?\)), size", loop)
    assert saved == ["u(2:nx,:ny)", "v(:nx,2:ny)", "u(:1,:ny)", "u(nx + 1:nx + 1,:ny)",
                     "v(:nx,:1)", "v(:nx,ny + 1:ny + 1)"], loop
    assert "value_tape_put(u," not in loop and "value_tape_put(v," not in loop, loop


def test_value_updated_once_is_computed_again_before_its_update():
    # kessler: dq = (qv - qs)/(…) then dq = max(dq, -qc), whose adjoint reads
    # the first value: computed again (with qs, which its formula reads)
    # before the update's reversal, not taped; the name's earlier value
    # (dq = min(…) at the top of the iteration) is another value.
    path = harness.REPO_ROOT / "tests" / "fortran_fixtures" / "kessler_column.f90"
    text = _split(path, "kessler", ["t", "qv", "qc", "qr"], ["t", "qv", "qc", "qr"])
    rec = harness.routine_source(text, "kessler_rec")
    assert not re.search(r"value_tape\([^\n]*\) = (dq|qs)\n", rec), rec
    ret = harness.routine_source(text, "kessler_ret")
    qs = ret.index("qs = 0.622_wp")
    dq = ret.index("dq = (qv(k,j) - qs)")
    assert qs < dq < ret.index("merge(1, 0, dq >= -qc(k,j))"), ret


def test_array_overwritten_twice_per_iteration_is_saved_once_before_the_loop():
    # adjust_column: th(k) and th(k-1) are updated in each iteration (linear
    # updates: no adjoint in the loop reads th); the adjoints before the loop
    # need th as it was: th's section is pushed once before the loop, not
    # each element twice, and put back after the loop is reversed.
    path = harness.REPO_ROOT / "tests" / "fortran_fixtures" / "alloc_work_column.f90"
    text = _split(path, "columns_run", ["cost"], ["th0"])
    rec = harness.routine_source(text, "adjust_column_rec")
    update = rec[rec.index("th(k) = th(k) + "):]
    assert "value_tape" not in update[:update.index("enddo")], rec
    assert re.search(r"value_tape\([^\n]*\) = th\(:\)\n\s*value_tape_top = [^\n]*\n"
                     r"\s*do k = 2, nlev", rec), rec
    ret = harness.routine_source(text, "adjust_column_ret")
    assert re.search(r"enddo\n\s*value_tape_top = value_tape_top - size\(th\(:\)\)\n"
                     r"\s*th\(:\) = value_tape", ret), ret


def test_section_assignment_tapes_no_undefined_values():
    # lev(:, iold) = u0 first sets a local: its adjoint names lev only in
    # LBOUND/UBOUND (the section's bounds), which read no value of it, so
    # the undefined values it overwrites are not taped.
    path = harness.REPO_ROOT / "tests" / "fortran_fixtures" / "leapfrog_level_indices.f90"
    text = _split(path, "leap_run", ["cost"], ["u0", "c"])
    rec = harness.routine_source(text, "leap_run_rec")
    start = rec[:rec.index("do it = 1")]
    assert not re.search(r"value_tape\([^\n]*\) = lev", start), rec


def test_if_decisions_go_on_the_tape_one_bit_each():
    # convect_while: the test reads the levels its branch changes, so each
    # decision is recorded: as a bit (adfort/branch_tape.py), 64 to a word,
    # not an integer.  The fixture's FD check runs hundreds of decisions,
    # across words.
    path = harness.REPO_ROOT / "tests" / "fortran_fixtures" / "convect_while.f90"
    text = _split(path, "adjust_columns", ["th"], ["th"])
    rec = harness.routine_source(text, "adjust_columns_rec")
    assert rec.count("call control_tape_bits_push(") == 2, rec
    assert "control_tape(control_tape_top + 1) = 1" not in rec, rec
    ret = harness.routine_source(text, "adjust_columns_ret")
    assert re.search(r"call control_tape_bits_pop\(branch_taken\)\n\s*if \(branch_taken == 1\)",
                     ret), ret
    push = harness.routine_source(text, "control_tape_bits_push")
    assert "== 64" in push and "ishft(control_tape_bits_word, 1)" in push, push


def test_short_function_value_is_computed_again_not_handed_over():
    # face_flux's limiter value superbee(r), r a short formula of its
    # arguments: its returning motion computes d, r and the limiter again
    # (through superbee_rec) instead of taking the value from the tape, so
    # the split tape holds only the time steps' states.
    path = harness.REPO_ROOT / "tests" / "fortran_fixtures" / "flux2d_limiter_chain.f90"
    text = _split(path, "fv_run", ["cost"], ["q0", "cx"], {"inline": False})
    rec = harness.routine_source(text, "face_flux_rec")
    assert "value_tape" not in rec, rec
    ret = harness.routine_source(text, "face_flux_ret")
    assert "call superbee_rec(r, superbee_value)" in ret, ret
