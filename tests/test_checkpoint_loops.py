"""Checkpointed time loops (``!$adfort checkpoint binomial(snapshots=S)`` /
``every(k)``, ``--checkpoint``; adfort/checkpoint_loops.py and
adfort/transformations/checkpoint.py).

A 1-D shallow-water model (Lax-Friedrichs step, its fluxes, a forcing and
a misfit cost accumulated over the time loop): gradients under
checkpointing equal the plain adjoint's to round-off and match central
finite differences, under both schedules, for trip counts 0, 1, S, S+1
and a prime; the routine holding the loop as a callee; the command-line
form; the forward runs of each step within the binomial bound and the
peak tape (snapshots included) flat in the number of steps; the errors
for loops that cannot be checkpointed."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import harness
from adfort.api import differentiate_file
from adfort.checkpointing import binomial_actions, repetitions, simulate
from adfort.errors import AdfortError
from adfort.schedules import SplitReversalSchedule
from test_cli import assert_clean_failure, run

needs_gfortran = pytest.mark.skipif(shutil.which("gfortran") is None, reason="no gfortran")

MODEL = """\
! adfort: routine=swe_model dep=cost indep=h,u
! adfort: init n=12 nt=13 dt=0.02 dx=1.0 h=0.9:1.1 u=-0.1:0.1 hobs=0.95:1.05
module swe1d
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: grav = 9.81_dp
contains
  subroutine fluxes(n, h, hu, fh, fhu)
    integer, intent(in) :: n
    real(dp), intent(in) :: h(n), hu(n)
    real(dp), intent(out) :: fh(n), fhu(n)
    integer :: i
    do i = 1, n
      fh(i) = hu(i)
      fhu(i) = hu(i)**2/h(i) + 0.5_dp*grav*h(i)**2
    end do
  end subroutine fluxes

  subroutine lax_friedrichs(n, dt, dx, h, hu)
    integer, intent(in) :: n
    real(dp), intent(in) :: dt, dx
    real(dp), intent(inout) :: h(n), hu(n)
    real(dp) :: fh(n), fhu(n), hn(n), hun(n), r
    integer :: i, im, ip
    call fluxes(n, h, hu, fh, fhu)
    r = 0.5_dp*dt/dx
    do i = 1, n
      im = i - 1
      ip = i + 1
      if (im < 1) im = n
      if (ip > n) ip = 1
      hn(i) = 0.5_dp*(h(im) + h(ip)) - r*(fh(ip) - fh(im))
      hun(i) = 0.5_dp*(hu(im) + hu(ip)) - r*(fhu(ip) - fhu(im))
    end do
    h = hn
    hu = hun
  end subroutine lax_friedrichs

  subroutine swe_model(n, nt, dt, dx, h, u, hobs, cost)
    integer, intent(in) :: n, nt
    real(dp), intent(in) :: dt, dx, hobs(n)
    real(dp), intent(inout) :: h(n), u(n)
    real(dp), intent(out) :: cost
    real(dp) :: hu(n), misfit, forcing
    integer :: it, i
    hu = h*u
    cost = 0.0_dp
    {directive}
    do it = 1, nt
      forcing = 1.0e-3_dp*sin(0.3_dp*it)
      hu(1) = hu(1) + forcing*h(1)
      call lax_friedrichs(n, dt, dx, h, hu)
      misfit = 0.0_dp
      do i = 1, n
        misfit = misfit + (h(i) - hobs(i))**2
      end do
      cost = cost + 0.5_dp*misfit*dx
    end do
    u = hu/h
    cost = cost + 0.1_dp*sum(u**2)
  end subroutine swe_model
{caller}end module swe1d
"""

# The routine holding the loop called by another (split or joint link),
# several times (assimilation windows of growing length): the snapshots of
# each call live on the tapes between its recording and its returning.
CALLER = """
  subroutine analysis(n, nt, dt, dx, h, u, hobs, background, cost)
    integer, intent(in) :: n, nt
    real(dp), intent(in) :: dt, dx, hobs(n), background(n)
    real(dp), intent(inout) :: h(n), u(n)
    real(dp), intent(out) :: cost
    real(dp) :: c
    integer :: w
    cost = 0.5_dp*sum((h - background)**2)
    do w = 1, 3
      call swe_model(n, nt + w, dt, dx, h, u, hobs, c)
      cost = cost + c*w + 0.01_dp*sum(h*u)
      u = 0.9_dp*u
    end do
  end subroutine analysis
"""

BINOMIAL = "!$adfort checkpoint binomial(snapshots=3)"
EVERY = "!$adfort checkpoint every(3)"


def model(directive, caller=""):
    return MODEL.replace("{directive}", directive).replace("{caller}", caller)


def fixture(tmp_path, text, name="swe.f90", header=None):
    path = tmp_path / name
    if header is not None:
        text = re.sub(r"\A(! adfort:.*\n)+", header, text)
    path.write_text(text)
    return path


def run_case(path, schedule, workdir, steps, extra_cli=()):
    meta = harness.parse_metadata(path)
    meta.init["nt"] = str(steps)
    result = harness.check_fixture(path, schedule, workdir, extra_cli, metadata=meta)
    assert result.rel_err < 1e-6, result.describe()
    assert result.primal_err < 1e-12, result.describe()
    return result


_PLAIN = {}


def plain_gradient(tmp_path_factory, schedule, steps, caller=""):
    """The dot product <x_adj, dx> of the plain adjoint (no checkpointing)."""
    key = (schedule, steps, caller)
    if key not in _PLAIN:
        where = tmp_path_factory.mktemp("plain")
        path = fixture(where, model("", caller))
        _PLAIN[key] = run_case(path, schedule, where / schedule, steps).lhs
    return _PLAIN[key]


def same(a, b):
    return abs(a - b) <= 1e-12 * max(abs(a), abs(b), 1e-300)


@needs_gfortran
@pytest.mark.parametrize("schedule,steps", [
    ("split", 0), ("split", 1), ("split", 3), ("split", 4), ("split", 13),
    ("joint", 1), ("joint", 4), ("joint", 13)])
def test_binomial_gradient_equals_the_plain_adjoint(tmp_path, tmp_path_factory, schedule,
                                                    steps):
    # 3 snapshots: trip counts 0, 1, S, S + 1 and a prime.
    path = fixture(tmp_path, model(BINOMIAL))
    result = run_case(path, schedule, tmp_path / schedule, steps)
    text = result.generated.read_text()
    assert "module swe_model_checkpointing" in text and "adfort_checkpointing" not in text
    assert "call adfort_binomial_schedule(ckpt_steps, 3," in text
    if steps and schedule == "split" or steps == 13:
        assert same(result.lhs, plain_gradient(tmp_path_factory, schedule, steps)), \
            (result.lhs, plain_gradient(tmp_path_factory, schedule, steps))


@needs_gfortran
@pytest.mark.parametrize("schedule,steps", [("split", 0), ("split", 1), ("split", 13),
                                            ("joint", 13)])
def test_every_k_gradient_equals_the_plain_adjoint(tmp_path, tmp_path_factory, schedule,
                                                   steps):
    path = fixture(tmp_path, model(EVERY))
    result = run_case(path, schedule, tmp_path / schedule, steps)
    assert "call adfort_periodic_schedule(ckpt_steps, 3," in result.generated.read_text()
    if steps == 13:
        assert same(result.lhs, plain_gradient(tmp_path_factory, schedule, steps))


@needs_gfortran
@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_routine_with_the_loop_as_a_callee(tmp_path, tmp_path_factory, schedule):
    header = ("! adfort: routine=analysis dep=cost indep=h,u\n"
              "! adfort: init n=12 nt=13 dt=0.02 dx=1.0 h=0.9:1.1 u=-0.1:0.1 "
              "hobs=0.95:1.05 background=0.9:1.1\n")
    path = fixture(tmp_path, model(BINOMIAL, CALLER), header=header)
    result = run_case(path, schedule, tmp_path / schedule, 13)
    text = result.generated.read_text()
    # Split: swe_model_rec runs the forward sweep, swe_model_ret the rest;
    # joint: analysis_ret calls swe_model_rev.
    assert ("call swe_model_rev(" in text) == (schedule == "joint")
    where = tmp_path_factory.mktemp("plain_caller")
    plain = run_case(fixture(where, model("", CALLER), header=header), schedule,
                     where / schedule, 13)
    assert same(result.lhs, plain.lhs), (result.lhs, plain.lhs)


def _routine_text(text, name):
    match = re.search(rf"^ *subroutine {name}\b.*?^ *end subroutine {name}\b", text,
                      re.S | re.M | re.I)
    assert match, name
    return match.group(0)


@needs_gfortran
@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_steps_recorded_again_make_their_own_room(tmp_path, schedule):
    """The returning motion records each reversed step again: its room
    checks named the routine's room local, which only the recording
    motion sets (uninitialised there), and under joint asked the size of
    a branch tape nothing had allocated (a run-time error under
    -fcheck=all).  Branches in the step and in the loop body."""
    text = model(BINOMIAL).replace(
        "      cost = cost + 0.5_dp*misfit*dx\n",
        "      if (misfit > 0.05_dp) then\n        cost = cost + 0.5_dp*misfit*dx\n"
        "      else\n        cost = cost + misfit**2\n      end if\n").replace(
        "      hun(i) = 0.5_dp*",
        "      if (hn(i) > 1.05_dp) hn(i) = 1.05_dp + 0.5_dp*(hn(i) - 1.05_dp)\n"
        "      hun(i) = 0.5_dp*")
    assert "if (misfit > 0.05_dp)" in text and "if (hn(i) > 1.05_dp)" in text
    result = run_case(fixture(tmp_path, text), schedule, tmp_path / schedule, 13)
    generated = result.generated.read_text()
    for motion in ("swe_model_ret_body", "swe_model_ret_given_body"):
        if f"subroutine {motion}(" in generated:
            body = _routine_text(generated, motion)
            assert "_room" not in body, body


@needs_gfortran
@pytest.mark.parametrize("schedule,jump", [
    ("split", "named"), ("joint", "named"), ("split", "goto"), ("joint", "goto")])
def test_directive_kept_in_a_restructured_routine(tmp_path, schedule, jump):
    """A routine with a named CYCLE or a GO TO is rewritten by the front
    end before the directives are applied: the directive (a comment) was
    dropped with the rest of the comments, and the loop silently taped
    whole.  It is kept on its loop now."""
    if jump == "named":
        body = ("      lev: do i = 1, n\n        if (hobs(i) < 0.0_dp) cycle lev\n"
                "        misfit = misfit + (h(i) - hobs(i))**2\n      end do lev\n")
    else:
        body = ("      do i = 1, n\n        if (hobs(i) < 0.0_dp) go to 10\n"
                "        misfit = misfit + (h(i) - hobs(i))**2\n10      continue\n"
                "      end do\n")
    text = model(BINOMIAL).replace(
        "      do i = 1, n\n        misfit = misfit + (h(i) - hobs(i))**2\n      end do\n",
        body)
    assert body in text
    result = run_case(fixture(tmp_path, text), schedule, tmp_path / schedule, 13)
    generated = result.generated.read_text()
    assert "call adfort_binomial_schedule(ckpt_steps, 3," in generated


@needs_gfortran
def test_command_line_form(tmp_path, tmp_path_factory):
    path = fixture(tmp_path, model(""))
    result = run_case(path, "split", tmp_path / "split", 13,
                      ["--checkpoint", "swe_model:it=binomial(snapshots=2)"])
    assert "call adfort_binomial_schedule(ckpt_steps, 2," in result.generated.read_text()
    assert same(result.lhs, plain_gradient(tmp_path_factory, "split", 13))


@needs_gfortran
@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_f77_parameter_constants_of_the_host(tmp_path, schedule):
    # The C-grid model's arrays are declared with MX, MY of an F77 PARAMETER
    # statement (INTEGER MX, MY / PARAMETER (MX = 200, MY = 200)): the
    # outlined step declares them as constants, not as dummies (it took
    # them for variables and stopped with an internal error).
    path = tmp_path / "sw_cgrid_walls.f"
    path.write_text((harness.REPO_ROOT / "benchmarks" / "sw_cgrid_walls.f").read_text())
    result = run_case(path, schedule, tmp_path / schedule, 5,
                      ["--checkpoint", "SWRUN:IT=binomial(snapshots=2)"])
    assert "call adfort_binomial_schedule(ckpt_steps, 2," in \
        result.generated.read_text().lower()


# F77: the state in COMMON, written by the step's callee; a labelled loop.
HEAT = """\
C adfort: routine=run dep=cost indep=t0
C adfort: init n=10 nt=11 dt=0.1 t0=0.5:1.5
      SUBROUTINE DIFF1(N, DT)
      INTEGER N, I
      DOUBLE PRECISION DT
      DOUBLE PRECISION T(100), FLUX(101)
      COMMON /STATE/ T, FLUX
      DO 20 I = 2, N
         FLUX(I) = 0.5D0*(T(I) - T(I-1))*(1.0D0 + 0.1D0*T(I)**2)
   20 CONTINUE
      FLUX(1) = 0.0D0
      FLUX(N+1) = 0.0D0
      DO 30 I = 1, N
         T(I) = T(I) + DT*(FLUX(I+1) - FLUX(I)) - DT*0.05D0*T(I)**3
   30 CONTINUE
      RETURN
      END

      SUBROUTINE RUN(N, NT, DT, T0, COST)
      INTEGER N, NT, I, IT
      DOUBLE PRECISION DT, T0(N), COST
      DOUBLE PRECISION T(100), FLUX(101)
      COMMON /STATE/ T, FLUX
      DO 5 I = 1, N
         T(I) = T0(I)
    5 CONTINUE
      COST = 0.0D0
{directive}
      DO 10 IT = 1, NT
         CALL DIFF1(N, DT)
         COST = COST + T(1)**2 + 0.5D0*T(N)**2
   10 CONTINUE
      RETURN
      END
"""


@needs_gfortran
@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_fixed_form_common_state(tmp_path, schedule):
    path = tmp_path / "heat.f"
    path.write_text(HEAT.replace("{directive}", "C$ADFORT CHECKPOINT BINOMIAL(SNAPSHOTS=4)"))
    result = run_case(path, schedule, tmp_path / schedule, 11)
    assert "call adfort_binomial_schedule(ckpt_steps, 4," in result.generated.read_text()
    if schedule == "split":
        plain = tmp_path / "plain"
        plain.mkdir()
        (plain / "heat.f").write_text(HEAT.replace("{directive}", "C"))
        assert same(result.lhs, run_case(plain / "heat.f", schedule, plain / schedule,
                                         11).lhs)


# The state in module variables the step writes; every(k).
TRACER = """\
! adfort: routine=forecast dep=cost indep=q0
! adfort: init n=6 nt=9 dt=0.05 q0=0.5:1.5
module tracer
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp) :: q(64), qold(64)
  real(dp) :: total
contains
  subroutine advance(n, dt, it)
    integer, intent(in) :: n, it
    real(dp), intent(in) :: dt
    integer :: i
    qold(1:n) = q(1:n)
    do i = 2, n
      q(i) = qold(i) - dt*(qold(i)**2 - qold(i-1)**2) + 1.0e-3_dp*it
    end do
    q(1) = qold(1)*(1.0_dp - dt)
    total = total + sum(q(1:n))*dt
  end subroutine advance

  subroutine forecast(n, nt, dt, q0, cost)
    integer, intent(in) :: n, nt
    real(dp), intent(in) :: dt, q0(n)
    real(dp), intent(out) :: cost
    integer :: step
    q(1:n) = q0
    total = 0.0_dp
    !$adfort checkpoint every(2)
    do step = 1, nt
      call advance(n, dt, step)
    end do
    cost = total + sum(q(1:n)**2)
  end subroutine forecast
end module tracer
"""


@needs_gfortran
@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_module_variable_state(tmp_path, schedule):
    path = fixture(tmp_path, TRACER, "tracer.f90")
    result = run_case(path, schedule, tmp_path / schedule, 9)
    assert "call adfort_periodic_schedule(ckpt_steps, 2," in result.generated.read_text()


# A derived-type state, a loop counting down by 3, its index read after it.
EDGE = """\
! adfort: routine=relax_run dep=cost indep=x,c
! adfort: init n=7 nt=11 x=0.5:1.5 c=0.1:0.3
module edge
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  type :: column
    real(dp) :: t(16)
    real(dp) :: mass
  end type column
contains
  subroutine relax_run(n, nt, x, c, cost)
    integer, intent(in) :: n, nt
    real(dp), intent(inout) :: x(n)
    real(dp), intent(in) :: c
    real(dp), intent(out) :: cost
    type(column) :: col
    integer :: it, k, last
    col%t = 0.0_dp
    col%t(1:n) = x
    col%mass = sum(x)
    cost = 0.0_dp
    !$adfort checkpoint binomial(snapshots=2)
    do it = 3*nt, 3, -3
      do k = 2, n
        col%t(k) = col%t(k) - c*(col%t(k)**2 - col%t(k-1)*col%t(k)) + 1.0e-3_dp*it
      end do
      col%mass = col%mass*(1.0_dp - 0.01_dp*c) + col%t(n)
      cost = cost + col%mass*1.0e-2_dp + col%t(2)**2
    end do
    last = it
    cost = cost + 1.0e-3_dp*last*col%t(n) 
    x = col%t(1:n)
  end subroutine relax_run
end module edge
"""


@needs_gfortran
@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_derived_state_negative_stride_index_after_loop(tmp_path, schedule):
    run_case(fixture(tmp_path, EDGE, "edge.f90"), schedule, tmp_path / schedule, 11)


# -- cost: forward runs and peak tape ---------------------------------------

COUNTER = """\
module step_counter
  implicit none
  integer, allocatable :: runs(:), records(:)
end module step_counter
"""

MEASURE = """\
program measure
  use swe1d
  use swe1d_ad
  use step_counter
  use adf_meter_mod
  implicit none
  integer, parameter :: n = 8
  real(dp) :: h(n), u(n), hobs(n), h_adj(n), u_adj(n), cost, cost_adj
  integer :: nt, i
  character(len=32) :: arg
  call get_command_argument(1, arg)
  read(arg, *) nt
  allocate(runs(nt), records(nt))
  runs = 0
  records = 0
  do i = 1, n
    h(i) = 1.0_dp + 0.05_dp*sin(0.7_dp*i)
    u(i) = 0.05_dp*cos(0.3_dp*i)
    hobs(i) = 1.0_dp
  end do
  h_adj = 0.0_dp
  u_adj = 0.0_dp
  cost_adj = 1.0_dp
  call swe_model_rev(n, nt, 0.02_dp, 1.0_dp, h, h_adj, u, u_adj, hobs, cost, cost_adj)
  print '(a, i0)', '@max_runs ', maxval(runs)
  print '(a, i0)', '@total_runs ', sum(runs)
  print '(a, i0)', '@min_records ', minval(records)
  print '(a, i0)', '@max_records ', maxval(records)
  print '(a, i0)', '@peak_bytes ', adf_meter_peak(0)
  print '(a, es24.16)', '@gradient ', sum(h_adj) + sum(u_adj)
end program measure
"""


def _counted(text):
    """The generated code with the runs of the step (plain, recording)
    counted per step (the step routine reads the loop index ``it``)."""
    for name, counter in (("swe_model_ckpt_step", "runs"),
                          ("swe_model_ckpt_step_rec", "records")):
        head = re.search(rf"^(\s*)subroutine {name}\(.*\n", text, re.M)
        assert head, name
        text = text[:head.end()] + f"{head.group(1)}  use step_counter\n" + text[head.end():]
        end = re.search(rf"^\s*end subroutine {name}\s*$", text, re.M)
        text = text[:end.start()] + f"    {counter}(it) = {counter}(it) + 1\n" + \
            text[end.start():]
    return text


@needs_gfortran
def test_forward_runs_within_the_binomial_bound_and_flat_peak_tape(tmp_path):
    sys.path.insert(0, str(harness.REPO_ROOT / "scripts"))
    import tape_meter
    snapshots = 20
    path = fixture(tmp_path, model(f"!$adfort checkpoint binomial(snapshots={snapshots})"))
    text, _, _ = differentiate_file(str(path), ["cost"], ["h", "u"],
                                    SplitReversalSchedule())
    instrumented, _ = tape_meter.instrument(_counted(text))
    (tmp_path / "swe_ad.f90").write_text(instrumented)
    (tmp_path / "meter.f90").write_text(COUNTER + tape_meter.METER_SOURCE)
    (tmp_path / "measure.f90").write_text(MEASURE)
    subprocess.run(["gfortran", "-O2", "-o", "measure", "meter.f90", "swe.f90", "swe_ad.f90",
                    "measure.f90"], cwd=tmp_path, check=True, capture_output=True)
    figures = {}
    for steps in (1000, 10000):
        out = subprocess.run(["./measure", str(steps)], cwd=tmp_path, check=True,
                             capture_output=True, text=True).stdout
        values = dict(line.split() for line in out.splitlines() if line.startswith("@"))
        figures[steps] = values
        t = repetitions(steps, snapshots)
        runs, _ = simulate(binomial_actions(steps, snapshots), steps, snapshots)
        # Each step recorded once; run forward at most t times besides
        # (the first sweep included): N = 10^4, S = 20 gives t = 4, so at
        # most 3 runs after the first sweep.  The last step runs once
        # more (from its snapshot, in the recording motion).
        assert int(values["@min_records"]) == int(values["@max_records"]) == 1
        assert int(values["@max_runs"]) <= t
        assert int(values["@total_runs"]) == sum(runs) + 1
    assert repetitions(10000, snapshots) == 4
    # The peak tape (snapshots on it) does not grow with the number of steps:
    # at most S + 1 states (8 h, 8 hu, cost... in doubles) and one step's tape.
    peak = {steps: int(values["@peak_bytes"]) for steps, values in figures.items()}
    assert peak[10000] == peak[1000], peak
    assert peak[10000] < (snapshots + 1) * 8 * 24 + 8 * 200, peak
    print(f"\nN=10^4, S={snapshots}: forward runs {figures[10000]['@total_runs']} "
          f"(max {figures[10000]['@max_runs']} per step), peak tape {peak}")


# -- errors ------------------------------------------------------------------

LOOP = """\
subroutine integrate(n, nt, dt, x, cost)
  implicit none
  integer, intent(in) :: n, nt
  real(8), intent(in) :: dt
  real(8), intent(inout) :: x(n)
  real(8), intent(out) :: cost
  real(8), allocatable :: work(:)
  integer :: it
  cost = 0
{directive}
{loop}
end subroutine integrate
"""

COUNTED = """\
  do it = 1, nt
{body}
    cost = cost + sum(x**2)
  end do"""


def _error(tmp_path, directive, loop=None, body="    x = x + dt*x**2"):
    text = LOOP.replace("{directive}", directive).replace(
        "{loop}", loop if loop is not None else COUNTED.replace("{body}", body))
    path = tmp_path / "integrate.f90"
    path.write_text(text)
    with pytest.raises(AdfortError) as info:
        differentiate_file(str(path), ["cost"], ["x"], SplitReversalSchedule())
    return str(info.value)


@pytest.mark.parametrize("directive,fragment", [
    ("!$adfort checkpoint", "'(none)' is not one adfort knows"),
    ("!$adfort checkpoint binomial", "is not one adfort knows"),
    ("!$adfort checkpoint binomial()", "must be a positive integer literal (got 'nothing')"),
    ("!$adfort checkpoint binomial(snapshots=0)", "must be a positive integer"),
    ("!$adfort checkpoint binomial(snapshots=s)", "must be a positive integer"),
    ("!$adfort checkpoint every(-2)", "must be a positive integer"),
    ("!$adfort checkpoint revolve(20)", "is not one adfort knows"),
])
def test_malformed_directives(tmp_path, directive, fragment):
    message = _error(tmp_path, directive)
    assert message.startswith(f"{tmp_path / 'integrate.f90'}:10: ")
    assert fragment in message


@pytest.mark.parametrize("loop,body,line,fragment", [
    ("  cost = 1\n" + COUNTED, None, 10, "is not followed by a DO loop"),
    ("  do while (cost < 1)\n    x = x + dt*x\n    cost = cost + sum(x)\n  end do", None, 10,
     "DO WHILE"),
    (None, "    if (maxval(x) > 1d3) exit\n    x = x + dt*x", 12, "'EXIT' of the checkpointed"),
    (None, "    if (maxval(x) > 1d3) return\n    x = x + dt*x", 12, "RETURN inside"),
    (None, "    if (maxval(x) > 1d3) go to 99\n    x = x + dt*x", 12, "GO TO out of"),
    (None, "    allocate(work(n))\n    work = x\n    x = x + dt*work\n    deallocate(work)",
     12, "ALLOCATE inside the checkpointed loop"),
])
def test_loops_that_cannot_be_checkpointed(tmp_path, loop, body, line, fragment):
    if loop is None:
        loop = COUNTED.replace("{body}", body)
        if "go to 99" in body:
            loop += "\n99 continue"
    message = _error(tmp_path, "!$adfort checkpoint binomial(snapshots=4)", loop)
    assert message.startswith(f"{tmp_path / 'integrate.f90'}:{line}: "), message
    assert fragment in message, message


def test_nested_checkpointed_loops(tmp_path):
    body = ("!$adfort checkpoint every(2)\n    do k = 1, 4\n      x = x + dt*x**2\n"
            "    end do")
    text = LOOP.replace("integer :: it", "integer :: it, k").replace(
        "{directive}", "!$adfort checkpoint binomial(snapshots=4)").replace(
        "{loop}", COUNTED.replace("{body}", body))
    path = tmp_path / "integrate.f90"
    path.write_text(text)
    with pytest.raises(AdfortError) as info:
        differentiate_file(str(path), ["cost"], ["x"], SplitReversalSchedule())
    assert str(info.value).startswith(f"{path}:13: ")
    assert f"nested in each other ({path}:11 and {path}:13)" in str(info.value)


def test_exit_of_an_inner_loop_is_fine(tmp_path):
    body = ("    do k = 1, n\n      if (x(k) > 1d3) exit\n      x(k) = x(k) + dt*x(k)**2\n"
            "    end do")
    text = LOOP.replace("integer :: it", "integer :: it, k").replace(
        "{directive}", "!$adfort checkpoint binomial(snapshots=4)").replace(
        "{loop}", COUNTED.replace("{body}", body))
    path = tmp_path / "integrate.f90"
    path.write_text(text)
    out, _, _ = differentiate_file(str(path), ["cost"], ["x"], SplitReversalSchedule())
    assert "subroutine integrate_ckpt_step_rec" in out


def test_command_line_errors(tmp_path):
    path = tmp_path / "integrate.f90"
    path.write_text(LOOP.replace("{directive}", "").replace(
        "{loop}", COUNTED.replace("{body}", "    x = x + dt*x**2")))
    for value, fragment in [
            ("integrate=binomial(2)", "write ROUTINE:LOOP=SCHEDULE"),
            ("integrate:2=binomial(snapshots=2)", "has no counted DO loop '2' (it has 1)"),
            ("integrate:k=every(5)", "has no counted DO loop 'k'"),
            ("nowhere:1=every(5)", "no routine 'nowhere'"),
            ("integrate:1=every(0)", "must be a positive integer")]:
        result = run(["diff", str(path), "--dep", "cost", "--indep", "x", "--checkpoint",
                      value], tmp_path)
        assert_clean_failure(result, tmp_path, fragment)
    result = run(["diff", "--help"], tmp_path)
    assert "--checkpoint" in result.stdout and "binomial(snapshots=S)" in result.stdout



# -- fixed-point loops (Christianson's two-phase adjoint) --------------------

# A steady state by Jacobi sweeps of a nonlinear diffusion problem.
JACOBI = """\
! adfort: routine=steady dep=cost indep=f,kappa
! adfort: init n=10 f=0.5:1.5 kappa=0.5:2.0
module steady_state
  implicit none
  integer, parameter :: dp = kind(1.0d0)
contains
  subroutine jacobi_sweep(n, kappa, f, u, res)
    integer, intent(in) :: n
    real(dp), intent(in) :: kappa(n), f(n)
    real(dp), intent(inout) :: u(n)
    real(dp), intent(out) :: res
    real(dp) :: unew(n), left, right
    integer :: i
    do i = 1, n
      left = 0.0_dp
      right = 0.0_dp
      if (i > 1) left = u(i-1)
      if (i < n) right = u(i+1)
      unew(i) = (f(i) + kappa(i)*(left + right))/(1.0_dp + 2.0_dp*kappa(i) + 0.1_dp*u(i)**2)
    end do
    res = maxval(abs(unew - u))
    u = unew
  end subroutine jacobi_sweep

  subroutine steady(n, kappa, f, cost)
    integer, intent(in) :: n
    real(dp), intent(in) :: kappa(n), f(n)
    real(dp), intent(out) :: cost
    real(dp) :: u(n), res
    integer :: iter
    u = 0.0_dp
    res = 1.0_dp
    iter = 0
{directive}
    do while (res > 1.0e-14_dp .and. iter < 5000)
      iter = iter + 1
      call jacobi_sweep(n, kappa, f, u, res)
    end do
    cost = sum(u**2) + u(1)*u(n)
  end subroutine steady
end module steady_state
"""
FIXED_POINT = "    !$adfort fixed-point(tol=1e-13, maxiter=2000)"


@needs_gfortran
@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_fixed_point_gradient_within_the_solver_tolerance(tmp_path, schedule):
    path = fixture(tmp_path, JACOBI.replace("{directive}", FIXED_POINT), "jacobi.f90")
    result = harness.check_fixture(path, schedule, tmp_path / schedule)
    assert result.rel_err < 1e-6 and result.primal_err < 1e-12, result.describe()
    text = result.generated.read_text()
    assert "call steady_fp_step_rec(" in text and "call steady_fp_step_ret(" in text
    # The full reversal of every iteration (no directive) gives the same
    # gradient within the tolerances.
    plain = tmp_path / "plain"
    plain.mkdir()
    full = harness.check_fixture(fixture(plain, JACOBI.replace("{directive}", ""),
                                         "jacobi.f90"), schedule, plain / schedule)
    assert abs(result.lhs - full.lhs) <= 1e-10 * abs(full.lhs), (result.lhs, full.lhs)


@pytest.mark.parametrize("directive,fragment", [
    ("!$adfort fixed-point", "write '!$adfort fixed-point(tol=T, maxiter=M)'"),
    ("!$adfort fixed-point(tol=1e-8)", "write '!$adfort fixed-point(tol=T, maxiter=M)'"),
    ("!$adfort fixed-point(tol=abc, maxiter=10)", "T a positive real literal"),
    ("!$adfort fixed-point(tol=1e-8, maxiter=0)", "M a positive integer literal"),
])
def test_malformed_fixed_point_directives(tmp_path, directive, fragment):
    path = tmp_path / "jacobi.f90"
    path.write_text(JACOBI.replace("{directive}", directive))
    with pytest.raises(AdfortError) as info:
        differentiate_file(str(path), ["cost"], ["f"], SplitReversalSchedule())
    assert str(info.value).startswith(f"{path}:34: ") and fragment in str(info.value)


def test_fixed_point_needs_a_do_while(tmp_path):
    message = _error(tmp_path, "!$adfort fixed-point(tol=1e-10, maxiter=50)")
    assert message.startswith(f"{tmp_path / 'integrate.f90'}:10: ")
    assert "not followed by a DO WHILE loop" in message


@needs_gfortran
@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_tangent_and_hvp_of_a_checkpointed_model(tmp_path, schedule):
    """The directive changes the reverse sweep only: the tangent runs the
    loop (its outlined step) forward and agrees with the checkpointed
    adjoint; the Hessian-vector product (tangent of that adjoint, snapshots
    included) matches differences of its gradients and uses the schedules
    module of the adjoint it is compiled with."""
    import tangent_harness as th
    source = tmp_path / "swe1d.f90"
    source.write_text(MODEL.format(directive="!$adfort checkpoint binomial(snapshots=3)",
                                   caller=""))
    tangent = th.check_tangent(source, schedule, tmp_path / "fwd")
    assert tangent.dot_err < 1e-12 and tangent.fd_err < 1e-6, tangent.describe()
    hvp = th.check_hvp(source, schedule, tmp_path / "hvp")
    assert hvp.fd_err < 1e-6 and hvp.grad_err < 1e-13, hvp.describe()
    assert hvp.hvp != 0, hvp.describe()



@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_fixed_point_state_read_before_the_loop(schedule, tmp_path):
    # cost = sum(x**2) before the fixed-point loop on x: its adjoint read x*
    # (the state before the loop was not kept): a wrong gradient (0.32).
    harness.check_source(tmp_path, "fp.f90", '! adfort: routine=fp dep=cost indep=x0,p\n! adfort: init n=3 x0=0.5:1.5 p=0.2:0.4\nmodule m\n  implicit none\ncontains\n  subroutine sweep(n, p, y, x, res)\n    integer, intent(in) :: n\n    real(8), intent(in) :: p, y(n)\n    real(8), intent(inout) :: x(n)\n    real(8), intent(out) :: res\n    real(8) :: xn(n)\n    xn = 0.5d0*(y + p*sin(x))\n    res = maxval(abs(xn - x))\n    x = xn\n  end subroutine sweep\n  subroutine fp(n, x0, p, cost)\n    integer, intent(in) :: n\n    real(8), intent(in) :: x0(n), p\n    real(8), intent(out) :: cost\n    real(8) :: x(n), y(n), res\n    integer :: iter\n    x = x0\n    cost = sum(x**2)\n    y = x\n    res = 1.0d0\n    iter = 0\n    !$adfort fixed-point(tol=1e-14, maxiter=500)\n    do while (res > 1.0d-15 .and. iter < 500)\n      iter = iter + 1\n      call sweep(n, p, y, x, res)\n    end do\n    cost = cost + sum(x**3)\n  end subroutine fp\nend module m\n', schedule)



@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_checkpointed_body_with_a_do_variable_used_before_the_loop(schedule, tmp_path):
    # k also runs an initialisation loop before the checkpointed one: it was
    # passed to the step as an intent(in) argument, which the step's reversed
    # inner loop assigns (the generated code did not compile).
    harness.check_source(tmp_path, "ck.f90", '! adfort: routine=run dep=cost indep=x0\n! adfort: init n=4 nt=5 x0=0.5:1.5\nmodule m\n  implicit none\ncontains\n  subroutine run(n, nt, x0, cost)\n    integer, intent(in) :: n, nt\n    real(8), intent(in) :: x0(n)\n    real(8), intent(out) :: cost\n    real(8) :: x(n)\n    integer :: it, k\n    do k = 1, n\n      x(k) = x0(k)\n    end do\n    cost = 0.0d0\n    !$adfort checkpoint binomial(snapshots=2)\n    do it = 1, nt\n      do k = 1, n\n        x(k) = x(k) - 0.1d0*x(k)**2\n        cost = cost + x(k)**2\n      end do\n    end do\n  end subroutine run\nend module m\n', schedule)


INTERNAL_STEP = {
    # The step calls an internal procedure that works on the host's
    # variables: the step routine takes them too (it was given only those
    # its own body names, and did not compile).
    "checkpoint.f90": """\
        ! adfort: routine=run dep=cost indep=x0,f
        ! adfort: init n=3 nt=5 x0=0:1 f=1:2
        module ckpt_internal
          implicit none
        contains
          subroutine run(n, nt, x0, f, cost)
            integer, intent(in) :: n, nt
            real(8), intent(in) :: x0(n), f
            real(8), intent(out) :: cost
            real(8) :: x(n)
            integer :: it
            x = x0
            !$adfort checkpoint every(2)
            do it = 1, nt
              call advance()
            end do
            cost = sum(x**2)
          contains
            subroutine advance()
              x = sin(x) + f*x
            end subroutine advance
          end subroutine run
        end module ckpt_internal
        """,
    "fixed_point.f90": """\
        ! adfort: routine=solve dep=cost indep=b
        ! adfort: init n=3 b=1:2
        module fp_internal
          implicit none
        contains
          subroutine solve(n, b, cost)
            integer, intent(in) :: n
            real(8), intent(in) :: b(n)
            real(8), intent(out) :: cost
            real(8) :: x(n), res
            x = 0d0
            res = 1d0
            !$adfort fixed-point(tol=1e-14, maxiter=200)
            do while (res > 1d-13)
              call sweep(res)
            end do
            cost = sum(x**2)
          contains
            subroutine sweep(r)
              real(8), intent(out) :: r
              real(8) :: xn(n)
              xn = 0.5d0*x + b
              r = maxval(abs(xn - x))
              x = xn
            end subroutine sweep
          end subroutine solve
        end module fp_internal
        """,
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("name", sorted(INTERNAL_STEP))
def test_step_calling_an_internal_procedure_of_the_host(name, schedule, tmp_path):
    harness.check_source(tmp_path, name, INTERNAL_STEP[name], schedule)
