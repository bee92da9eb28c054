"""What the recording motion leaves off the tape (adfort/taping.py,
adfort/fresh_elements.py, adfort/iterations.py): checked on the generated
code of the benchmarks/ kernels.  Their derivatives are checked against
finite differences by tests/test_benchmarks.py, and the mechanisms by the
fixture implicit_column_tendencies.f90 (each one's failure there was seen
with the mechanism broken on purpose)."""

import re
from pathlib import Path

import pytest

from adfort.api import differentiate_file
from adfort.schedules import JointReversalSchedule, SplitReversalSchedule
import harness

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def _part(text, name):
    low = harness.routine_source(text, name).lower()
    assert low, f"no {name} in the output"
    return low


@pytest.fixture(scope="module")
def advection():
    text, _, _ = differentiate_file(str(BENCH / "advection_limiter.f90"), ["cost"],
                                    ["c", "u"], SplitReversalSchedule(), routine="run",
                                    options={"inline": False})   # the call machinery
    return text


def test_split_caller_does_not_save_what_the_callee_puts_back(advection):
    # step_ret puts back every c it overwrote: run keeps no copy of c.
    run = _part(advection, "run_rec")
    assert "= c\n" not in run and not re.search(r"value_tape\([^)]*\) = c\b", run), run
    step = _part(advection, "step_rec")
    assert re.search(r"value_tape\(value_tape_top \+ 1\) = c\(i\)", step), step


def test_split_caller_does_not_save_common_state_the_callee_puts_back():
    # snwcol_ret reads no element of the COMMON array ts as snwcol_rec
    # left it (its adjoint needs the iterates tk, which it keeps itself):
    # snwrun keeps no copy of ts (it once saved the whole 100x200 array
    # before each column's call, 94 % of the tape).
    fixture = Path(__file__).resolve().parent / "fortran_fixtures" / \
        "snow_picard_common_state.f"
    text, _, _ = differentiate_file(str(fixture), ["cost"], ["t0", "ck"],
                                    SplitReversalSchedule(), routine="snwrun")
    run = _part(text, "snwrun_rec")
    assert "value_tape" not in run.replace("value_tape_reserve(0)", ""), run


def test_joint_caller_puts_back_the_common_column_the_callee_changes():
    # snwcol changes ts(1:nz, j) only (its own loop, and tridag's result
    # copied in): the joint caller puts back that column, not the whole
    # 100x200 COMMON array, before each column's snwcol_rev.
    fixture = Path(__file__).resolve().parent / "fortran_fixtures" / \
        "snow_picard_common_state.f"
    text, _, _ = differentiate_file(str(fixture), ["cost"], ["t0", "ck"],
                                    JointReversalSchedule(), routine="snwrun")
    run = _part(text, "snwrun_rec")
    assert "value_tape_put(ts(:nz,j:j)" in run.replace(" ", ""), run
    assert "value_tape_put(ts," not in run.replace(" ", ""), run


def test_face_scalars_and_a_surface_array_are_computed_again():
    # Per face, dsdx, dsdy and diff are short formulas of s (subscripts
    # do not count to the formula's length) and s = bed + h is set once
    # from inputs the step never changes: sia_step_rec tapes nothing (it
    # once pushed three scalars per face and handed s over whole).
    fixture = Path(__file__).resolve().parent / "fortran_fixtures" / \
        "sia_icesheet_swapped.f90"
    text, _, _ = differentiate_file(str(fixture), ["cost"], ["h", "bed"],
                                    SplitReversalSchedule(), routine="sia_run")
    rec = _part(text, "sia_step_rec_body")
    assert "value_tape" not in rec, rec
    assert "s = bed + h" in _part(text, "sia_step_ret_body")


def test_limiter_value_of_thirteen_operations_is_computed_again():
    # van Albada's limiter (SIGN, MAX, ABS and 10 arithmetic operations,
    # inlined) and the face value it gives are computed again in the
    # reversed face loop: lfflux_rec tapes nothing (it once pushed both
    # per face, two thirds of the split tape).
    text, _, _ = differentiate_file(
        str(Path(__file__).resolve().parent / "fortran_fixtures" /
            "leapfrog_vanalbada_common.f"),
        ["cost"], ["h0", "u"], SplitReversalSchedule(), routine="lfrun")
    assert "value_tape" not in _part(text, "lfflux_rec"), _part(text, "lfflux_rec")


def test_limited_slopes_are_computed_again_with_their_own_neighbour_index():
    # tendency's slopes (an elemental MC limiter per cell) are computed
    # again at the start of tendency_ret, not handed over: the copy of
    # their loop sets its own ip (the flux loop sets ip too).
    text, _, _ = differentiate_file(
        str(Path(__file__).resolve().parent / "fortran_fixtures" /
            "rk2_muscl_elemental_chain.f90"),
        ["misfit"], ["q", "w"], SplitReversalSchedule(), routine="transport_run")
    assert "value_tape" not in _part(text, "tendency_rec_body")
    ret = _part(text, "tendency_ret_body")
    assert "slope(i) = mc_slope_value" in ret and "ip_again = i + 1" in ret, ret


def test_array_assignment_of_elemental_functions_is_one_element_loop():
    # es = (1 - fice)*esat_liq(t(:, k)) + fice*esat_ice(t(:, k)): one loop
    # over the elements, each function's value in a scalar, no array
    # allocated per function and level (five ALLOCATE/DEALLOCATE pairs per
    # level before, with their bounds on the control tape).
    text, _, _ = differentiate_file(
        str(Path(__file__).resolve().parent / "fortran_fixtures" /
            "cloud_diag_where_elemental.f90"),
        ["cf", "thl", "thv"], ["t", "qv"], SplitReversalSchedule(),
        routine="cloud_diagnostics")
    rec = _part(text, "cloud_diagnostics_rec_body")
    assert "allocate(esat" not in rec and "allocate(ice_fraction" not in rec, rec
    assert re.search(r"es\(element\w*\) = \(1\.0_r8 - fice\(element\w*\)\) \* "
                     r"esat_liq_value", rec), rec


@pytest.mark.parametrize("schedule", [SplitReversalSchedule(), JointReversalSchedule()],
                         ids=["split", "joint"])
def test_level_vectors_set_whole_are_computed_again(schedule):
    # tv = t(:, k)*(1 + 0.608*q(:, k)); rho = p(:, k)/(rd*tv); thv = tv/exner:
    # each reversed level computes them again (thv from exner, taped, set
    # before it in the level and not after), none is pushed per level.
    # exner (a real power), damp (EXP) and scale (it reads wet, changed
    # after it) stay on the tape.
    text, _, _ = differentiate_file(
        str(Path(__file__).resolve().parent / "fortran_fixtures" / "slab_level_vectors.f90"),
        ["mse", "stab", "buoy"], ["t", "q"], schedule, routine="slab_diagnostics")
    rec = _part(text, "slab_diagnostics_rec_body")
    pushed = set(re.findall(r"value_tape\(value_tape_top \+ 1:value_tape_top \+ size\((\w+)\)\) "
                            r"= \1\n", rec))
    assert not pushed & {"tv", "rho", "thv"}, rec
    assert {"exner", "damp", "scale_local"} <= pushed, rec
    ret = _part(text, "slab_diagnostics_ret_body")
    loop = ret[ret.index("do k = nlev, 1, -1"):]
    assert re.search(r"rho = p\(:,k\) / \(rd \* tv\)\n\s*thv = tv / exner\n", loop), loop
    # The cloud scheme's saturation humidity, relative humidity and latent
    # heat per level, likewise.
    text, _, _ = differentiate_file(
        str(Path(__file__).resolve().parent / "fortran_fixtures" /
            "cloud_diag_where_elemental.f90"),
        ["cf", "thl", "thv"], ["t", "qv"], schedule, routine="cloud_diagnostics")
    rec = _part(text, "cloud_diagnostics_rec_body")
    assert not re.search(r"value_tape\([^)]*\) = (qs|rh|lat)\n", rec), rec


def test_elemental_function_under_cshift_stays_whole():
    # pp = 1 + 0.45*cshift(fdens(0.81*amat - 0.52), 2): CSHIFT reads the
    # function's values at other elements, so the assignment is not one
    # element loop (it was, and gfortran refused CSHIFT of a scalar: fuzz
    # L3/s1022003).
    from adfort.testing.campaign import run
    [result] = run([(1022003, 3)], jobs=1, tangent=False)
    assert result["cls"] == "pass", result["message"]


def test_outer_loop_index_arithmetic_read_by_inner_copies_is_not_taped():
    # The reversed inner loop computes the limiter's ratio again from
    # q(i, jm); jm itself is computed again by the reversed outer loop, so
    # fv_step_rec pushes neither jm nor jp (it once pushed both per row).
    text, _, _ = differentiate_file(
        str(Path(__file__).resolve().parent / "fortran_fixtures" / "flux2d_limiter_chain.f90"),
        ["cost"], ["q0", "cx"], SplitReversalSchedule(), routine="fv_run")
    rec = _part(text, "fv_step_rec_body")
    assert not re.search(r"= j[mp]\n", rec.replace("= j - 1\n", "").replace("= j + 1\n", "")
                         .replace("jm = ny\n", "").replace("jp = 1\n", "")), rec


def test_ratio_given_to_a_function_is_computed_again(advection):
    # r = (c(i) - c(i-1))/dc, then limiter(r): r is computed again in the
    # reversed iteration, not taped.
    rec, ret = _part(advection, "fluxes_rec"), _part(advection, "fluxes_ret")
    assert not re.search(r"value_tape\([^)]*\) = r\n", rec.split("enddo")[0]), rec
    assert re.search(r"r = \(c\(i\) - c\(i - 1\)\) / dc", ret), ret


def test_solver_sweep_tapes_no_fresh_elements():
    text, _, _ = differentiate_file(str(BENCH / "vertical_diffusion_thomas.f90"),
                                    ["cost"], ["kz", "tr"], SplitReversalSchedule(),
                                    routine="vdiff_cost")
    rec = _part(text, "tridiag_solve_rec")
    loops = rec.split("do k")[1:]
    for loop in loops:
        body = loop.split("enddo")[0]
        assert not re.search(r"value_tape\([^)]*\) = (cp|dp|x)\(k\)", body), body
    # The caller does not save the solver's intent(out) result on entry.
    column = _part(text, "diffuse_column_rec")
    assert not re.search(r"value_tape\([^)]*\) = t\n", column), column


def test_stencil_difference_is_computed_again():
    text, _, _ = differentiate_file(str(BENCH / "burgers_upwind_misfit.f90"), ["cost"],
                                    ["u0", "nu"], SplitReversalSchedule())
    rec, ret = _part(text, "burgers_cost_rec"), _part(text, "burgers_cost_ret")
    assert "= diff\n" not in rec.split("cost = 0.0_wp")[0], rec
    assert "diff = u(ip) - 2.0_wp * u(i) + u(im)" in ret, ret
    # adv is read by no adjoint: not computed again.
    assert "adv = " not in ret, ret


@pytest.fixture(scope="module")
def lorenz():
    from adfort.schedules import JointReversalSchedule
    return {name: differentiate_file(str(BENCH / "lorenz96_rk4.f"), ["cost"], ["x0", "forc"],
                                     schedule, routine="l96run")[0]
            for name, schedule in (("split", SplitReversalSchedule()),
                                   ("joint", JointReversalSchedule()))}


def test_joint_caller_puts_back_no_argument_the_callee_only_writes(lorenz):
    # L96TND sets DXDT (no intent: FORTRAN 77) without reading it: the RK4
    # step reversed joint neither saves K1..K4 before the calls nor puts
    # them back before L96TND_rev.
    for part in ("l96rk4_rec", "l96rk4_rev"):
        code = _part(lorenz["joint"], part)
        assert not re.search(r"value_tape\(.*\) = k[1-4]\b", code), code
        assert not re.search(r"\bk[1-4] = value_tape", code), code


def test_caller_saves_what_an_explicit_shape_dummy_reaches(lorenz):
    # X(NMAX) given to L96RK4's X(N): the time loop saves x(1:n) per step,
    # not the NMAX elements (workarray_sections.f checks the gradients).
    run = _part(lorenz["joint"], "l96run_rec")
    assert re.search(r"value_tape\(.*\) = x\(:n\)\n", run), run
    assert not re.search(r"value_tape\(.*\) = x\n", run), run


def test_work_array_is_handed_over_where_it_was_set(lorenz):
    # XT(NMAX) set on 1:N only: its final values go on the tape on 1:N.
    rec = _part(lorenz["split"], "l96rk4_rec")
    assert re.search(r"value_tape\(.*\) = xt\(:n\)\n", rec), rec
    assert not re.search(r"value_tape\(.*\) = xt\n", rec), rec


def test_work_arrays_adjoints_are_zeroed_where_they_are_set(lorenz):
    # K1..K4, XT of NMAX elements used on 1:N: their adjoints are zeroed on
    # 1:N (NMAX = 5 N in the benchmark: zeroing them whole cost as much as a
    # primal step), under both schedules; the gradients are FD-checked with
    # the fixtures (lorenz96.f, workarray_sections.f).
    # K1..K4's adjoints are first assigned element by element by the loop
    # that reverses the last update of X: not zeroed at all
    # (adfort/known_zero.py, tests/test_known_zero.py).
    for schedule, part in (("split", "l96rk4_ret"), ("joint", "l96rk4_rev")):
        code = _part(lorenz[schedule], part)
        assert "xt_adj(:n) = 0.0d0" in code and "xt_adj = 0.0d0" not in code, code
        for name in ("k1", "k2", "k3", "k4"):
            assert f"{name}_adj(:n) = 0.0d0" not in code, code
            assert f"{name}_adj = 0.0d0" not in code, code


def test_sections_of_work_arrays_in_a_fixture():
    # workarray_sections.f (FD-checked with the fixtures): g set on its
    # interior by a callee that never reads it, x(1:n) reached by calls.
    from adfort.schedules import JointReversalSchedule
    path = BENCH.parent / "tests" / "fortran_fixtures" / "workarray_sections.f"
    text = differentiate_file(str(path), ["cost"], ["x0", "c"], JointReversalSchedule(),
                              routine="wsrun", options={"split_tapeless": False})[0]
    run = _part(text, "wsrun_rec")
    assert re.search(r"value_tape\(.*\) = g\(:n\)\n", run), run   # saved, not whole
    assert re.search(r"value_tape\(.*\) = x\(:n\)\n", run), run   # put back for wsstep
    ret = _part(text, "wsrun_ret")
    # g is put back for no joint call (wsgrad only writes it).
    before = ret.split("call wsgrad_rev")[0].split("call wsstep_rev")[1]
    assert "g(:n) = value_tape" not in before, ret
    step = _part(text, "wsstep_rec")
    assert re.search(r"value_tape\(.*\) = xm\(:n\)\n", step), step


def test_loop_bounds_are_evaluated_again_not_taped():
    # moist_column's level loop: nlev is intent(in), the reversed loop runs
    # from it; nothing is left on the control tape.
    from adfort.schedules import JointReversalSchedule
    text = differentiate_file(str(BENCH / "moist_thermo.f90"), ["thetae", "twet"],
                              ["t", "q"], JointReversalSchedule(), routine="moist_column")[0]
    assert "control_tape" not in text.lower(), text
    assert "do k = nlev, 1, -1" in _part(text, "moist_column_ret")
    # loop_bounds_again.f90 (FD-checked with the fixtures): a triangular
    # nest and a downward loop run from their bounds, loops whose bound
    # variable changes after them keep their trip counts.
    path = BENCH.parent / "tests" / "fortran_fixtures" / "loop_bounds_again.f90"
    text = differentiate_file(str(path), ["s", "y"], ["x", "w"], SplitReversalSchedule())[0]
    ret = _part(text, "triangular_sums_ret")
    assert "do i = n, j, -1" in ret and "do i = nk, 1, -1" in ret, ret
    assert ret.count("do i = control_tape(") == 2, ret


def test_short_function_value_is_computed_again(advection):
    # limiter(r) is one short formula of r: the reversed iteration calls it
    # again (r is computed again too) instead of popping its value, through
    # limiter_rec, which gfortran can inline from the generated module.
    rec, ret = _part(advection, "fluxes_rec"), _part(advection, "fluxes_ret")
    assert not re.search(r"value_tape\(.*\) = limiter_value\n", rec), rec
    assert "call limiter_rec(r, limiter_value)" in ret, ret
    assert "limiter(r)" not in ret and "limiter_value = value_tape" not in ret, ret


def test_scalar_reading_earlier_fresh_elements_is_computed_again():
    # den = b(k) - a(k)*cp(k-1): cp(k-1) was set by the iteration before and
    # is never set again, so the reversed iteration k computes den again.
    text, _, _ = differentiate_file(str(BENCH / "vertical_diffusion_thomas.f90"),
                                    ["cost"], ["kz", "tr"], SplitReversalSchedule(),
                                    routine="vdiff_cost")
    rec, ret = _part(text, "tridiag_solve_rec"), _part(text, "tridiag_solve_ret")
    assert not re.search(r"value_tape\(.*\) = den\n", rec), rec
    assert "den = b(k) - a(k) * cp(k - 1)" in ret, ret


def test_scalars_set_afresh_in_two_loops_are_computed_again():
    # bard_lmder.f (FD-checked with the fixtures): tmp1..tmp4 are set
    # afresh in each of the two loops (one per IFLAG) from the index and
    # x, which nothing changes: both reversed loops compute them again and
    # nothing goes on a tape.  (A costly scalar pushed once per iteration:
    # tests/test_shared_indices.py.)
    path = BENCH.parent / "tests" / "fortran_fixtures" / "bard_lmder.f"
    text = differentiate_file(str(path), ["fjac"], ["x"], SplitReversalSchedule(),
                              routine="bardfn")[0]
    rec = _part(text, "bardfn_rec")
    assert "value_tape" not in rec, rec
    ret = _part(text, "bardfn_ret")
    reversed_loop = ret[ret.index("do i = "):]
    assert re.search(r"tmp4 = \(x\(2\) \* tmp2 \+ x\(3\) \* tmp3\) \*\* 2", reversed_loop), ret


def test_cheap_scalars_set_once_are_computed_again_not_handed_over():
    # thermo_point under split: tc = t - t0c, e, es = 6.112*exp_value, rh,
    # r, tl, thetal, rhpc and the square root are computed again at the
    # start of its returning motion from its arguments, constants and the
    # costly values (EXP, LOG, ATAN, real powers) that are still handed
    # over.
    text = differentiate_file(str(BENCH / "moist_thermo.f90"), ["thetae", "twet"],
                              ["t", "q"], SplitReversalSchedule(), routine="moist_column")[0]
    rec, ret = _part(text, "thermo_point_rec"), _part(text, "thermo_point_ret")
    handed = set(re.findall(r"value_tape\(value_tape_top \+ 1\) = (\w+)\n", rec))
    assert handed == {"atan_value", "atan_value_1", "exp_value", "exp_value_1", "log_value",
                      "pow_value", "pow_value_1", "pow_value_2"}, rec
    for again in ("tc = t - t0c", "es = 6.112_wp * exp_value", "rh = e / es",
                  "rhpc = 100.0_wp * rh", "sqrt_value = sqrt(rhpc + 8.313659_wp)"):
        assert again in ret, ret


def test_coefficient_arrays_one_loop_sets_are_computed_again_not_handed_over():
    # diffuse_column under split: a, b, c (the tridiagonal coefficients,
    # set in one loop from kz, s and the index) are computed again by a copy
    # of that loop at the start of the returning motion; rhs (a copy of t,
    # which the solver then overwrites) is still handed over.
    text = differentiate_file(str(BENCH / "vertical_diffusion_thomas.f90"), ["cost"],
                              ["kz", "tr"], SplitReversalSchedule(), routine="vdiff_cost")[0]
    rec, ret = _part(text, "diffuse_column_rec"), _part(text, "diffuse_column_ret")
    handed = set(re.findall(r"value_tape_top \+ size\((\w+)\)\) = (\w+)\n", rec, re.I))
    assert handed == {("rhs", "rhs")}, rec
    loop = ret[ret.index("do k = 1, nlev"):ret.index("enddo")]
    assert "b(k) = 1.0_wp - a(k) - c(k)" in loop and "rhs" not in loop, ret
    # The Thomas solver's forward sweep (cp(1), dp(1), then den, cp(k),
    # dp(k) in one loop, from its unchanged arguments) is run again by its
    # returning motion: it hands nothing over.
    solver_rec, solver_ret = _part(text, "tridiag_solve_rec"), _part(text, "tridiag_solve_ret")
    assert "value_tape" not in solver_rec, solver_rec
    assert "cp(1) = c(1) / b(1)" in solver_ret and "den = b(k) - a(k) * cp(k - 1)" in solver_ret


def test_rank_two_snapshots_go_through_the_copy_routines():
    """A whole 2-D array on the tape (the joint caller's snapshot of the
    tracer per step): copied by value_tape_put/get, which take it as a
    vector; PACK and RESHAPE made gfortran build a temporary each time.
    The routine differentiated hands nothing over on the tape: its r_rev
    runs the recording inline and gives its final locals to
    tracer_run_ret_given."""
    from adfort.schedules import JointReversalSchedule
    text, _, _ = differentiate_file(str(BENCH / "tracer_2d_upwind.f90"), ["cost"],
                                    ["tr0", "kh"], JointReversalSchedule(),
                                    routine="tracer_run")
    low = text.lower()
    assert "pack(" not in low and "reshape(" not in low, low
    assert "call value_tape_put(tr, size(tr))" in _part(text, "tracer_run_rec"), low
    assert "call value_tape_get(tr, size(tr))" in _part(text, "tracer_run_ret"), low
    assert "subroutine value_tape_put(values, n)" in low
    rev = _part(text, "tracer_run_rev")
    assert rev.count("value_tape_put") == 1 and "value_tape_get" not in rev, rev
    assert "call tracer_run_ret_given(" in rev and "call tracer_run_rec(" not in rev, rev
    given = _part(text, "tracer_run_ret_given")
    # Once per step: before tracer_step_rev; nothing reads tr after it
    # before the previous step puts back its own snapshot
    # (adfort/joint_restores.py).
    assert given.count("value_tape_get") == 1, given
    assert given.index("value_tape_get") < given.index("call tracer_step_rev"), given


FIXTURES = Path(__file__).resolve().parent / "fortran_fixtures"

WHOLE_FIRST = """\
! adfort: routine=run dep=cost indep=t,q
! adfort: init n=8 nt=3 t=280:300 q=0.001:0.01
module whole_first
  implicit none
contains
  subroutine col(n, t, q)
    integer, intent(in) :: n
    real(8), intent(inout) :: t(n), q(n)
    integer :: k
    q(:) = q(:)*exp((t(:) - 273.15d0)/30d0)
    t(:) = t(:) + 2.5d3*q(:)
    do k = 1, n
      t(k) = t(k) - 0.1d0*q(k)*k
    end do
    t(2:) = t(2:) + 0.05d0*(t(:n-1) - t(2:))
  end subroutine col
  subroutine run(n, nt, t, q, cost)
    integer, intent(in) :: n, nt
    real(8), intent(inout) :: t(n), q(n)
    real(8), intent(out) :: cost
    integer :: it
    cost = 0d0
    do it = 1, nt
      call col(n, t, q)
      cost = cost + sum(t**2)*1d-4
    end do
  end subroutine run
end module whole_first
"""


def _pushed(code):
    """The values the lines of `code` push on the value tape, as written."""
    return [line.split(" = ", 1)[1].strip() for line in code.splitlines()
            if line.strip().startswith("value_tape(") and " = " in line]


def test_writes_after_a_taped_whole_array_write_are_not_taped(tmp_path):
    """``t(:) = …`` overwrites all of t: its restore puts back t as it was
    at entry, so the writes after it (an element per level, a section) are
    taped only if an adjoint reads what they overwrite (none here), and the
    routine still puts t back for its split caller, which saves no copy."""
    text, _, _ = differentiate_file(str(FIXTURES / "column_physics.f90"), ["t", "q", "precip"],
                                    ["t", "q"], SplitReversalSchedule(),
                                    routine="moist_column")
    saved = _pushed(_part(text, "moist_column_rec_body"))
    assert saved.count("t(:)") == 1 and "t(k)" not in saved and "t(2:)" not in saved, saved
    source = tmp_path / "whole_first.f90"
    source.write_text(WHOLE_FIRST)
    text, _, _ = differentiate_file(str(source), ["cost"], ["t", "q"], SplitReversalSchedule(),
                                    routine="run", options={"inline": False})
    col = _pushed(_part(text, "col_rec"))
    assert [v for v in col if v.startswith("t")] == ["t(:)"], col
    run = _pushed(_part(text, "run_rec"))
    assert not [v for v in run if v.startswith("t")], run
    for schedule in ("split", "joint"):
        harness.check_source(tmp_path, "whole_first.f90", WHOLE_FIRST, schedule)


COPY_BACK = """\
! adfort: routine=run dep=cost indep=q,p
! adfort: init n=7 nt=3 dt=0.3 q=0.5:1.5 p=-1:1
module copy_back
  implicit none
contains
  subroutine relax(n, kk, d, x)
    integer, intent(in) :: n
    real(8), intent(in) :: kk(n), d(n)
    real(8), intent(out) :: x(n)
    integer :: i
    do i = 1, n
      x(i) = d(i)*(1d0 + kk(i))/(1d0 + kk(i)*d(i)**2)
    end do
  end subroutine relax
  subroutine smooth(n, v, x)
    integer, intent(in) :: n
    real(8), intent(inout) :: v(n), x(n)
    x(2:n) = 0.5d0*(v(2:n) + x(1:n-1)*v(1:n-1))
    v = 0.5d0*v
  end subroutine smooth
  subroutine step(n, dt, q, p)
    integer, intent(in) :: n
    real(8), intent(in) :: dt
    real(8), intent(inout) :: q(n), p(n)
    real(8) :: kk(n), w(n), v(n)
    kk = dt*q**2
    w = q
    call relax(n, kk, w, q)
    w = p
    call relax(n, kk, w, p)
    p = p*q
    v = q
    call smooth(n, v, q)
    q = q + v**2
  end subroutine step
  subroutine run(n, nt, dt, q, p, cost)
    integer, intent(in) :: n, nt
    real(8), intent(in) :: dt
    real(8), intent(inout) :: q(n), p(n)
    real(8), intent(out) :: cost
    integer :: it
    do it = 1, nt
      call step(n, dt, q, p)
    end do
    cost = sum(q**2) + sum(p**3)
  end subroutine run
end module copy_back
"""


def test_a_variable_copied_before_a_call_is_put_back_from_the_copy(tmp_path):
    """``w = q; call relax(n, kk, w, q)``: where the returning motion
    reverses the call, w holds q's value at the call again (relax's reversal
    reads it, the call does not change it), so q is put back from w, not
    saved: the implicit column solvers' ``rhs = th`` (pbl_richardson).  A
    copy the call changes (``v = q; call smooth(n, v, q)``) leaves q saved."""
    source = tmp_path / "copy_back.f90"
    source.write_text(COPY_BACK)
    text, _, _ = differentiate_file(str(source), ["cost"], ["q", "p"], SplitReversalSchedule(),
                                    routine="run", options={"inline": False})
    rec, ret = _part(text, "step_rec_body"), _part(text, "step_ret_body")
    # (q's one save: before ``q = q + v**2``, which smooth's copy v feeds.)
    assert _pushed(rec).count("q") == 1, _pushed(rec)
    assert re.search(r"^\s*q = w$", ret, re.M), ret
    text, _, _ = differentiate_file(str(FIXTURES / "pbl_richardson_implicit.f90"), ["cost"],
                                    ["th", "u", "v", "z0"], SplitReversalSchedule(),
                                    routine="pbl_run")
    saved = _pushed(_part(text, "column_mix_rec_body"))
    assert not {"th", "u", "v"} & set(saved), saved
    for schedule in ("split", "joint"):
        harness.check_source(tmp_path, "copy_back.f90", COPY_BACK, schedule)
