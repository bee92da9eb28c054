"""Active locals of a derived type with allocatable components (a model
state ``type(state_t) :: s`` with ``s%t(:)``, ``s%q(:)`` allocated in the
routine): the adjoint's components are allocated, zeroed and freed where
the returning motion reverses the local's DEALLOCATE and ALLOCATE.  The
gradient is FD-checked with the fixture
tests/fortran_fixtures/derived_state_alloc_components.f90 (both
schedules); here, what adfort cannot follow is refused at file:line."""

import subprocess
import sys

import pytest

import harness

MODULE = """module dsb
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  type :: state_t
    real(wp), allocatable :: t(:)
  end type state_t
contains
  subroutine init(n, s, t0)
    integer, intent(in) :: n
    type(state_t), intent(inout) :: s
    real(wp), intent(in) :: t0(n)
    allocate(s%t(n))
    s%t = t0
  end subroutine init
  subroutine fill(n, s, t0)
    integer, intent(in) :: n
    type(state_t), intent(inout) :: s
    real(wp), intent(in) :: t0(n)
    call init(n, s, t0)
  end subroutine fill
  subroutine run(n, t0, cost)
    integer, intent(in) :: n
    real(wp), intent(in) :: t0(n)
    real(wp), intent(out) :: cost
    type(state_t) :: s, s2
BODY
    cost = sum(s%t**2)
  end subroutine run
end module dsb
"""

CASES = {
    "callee_allocates": ("    call init(n, s, t0)", ":26:", "'init' allocates or frees"),
    "deeper_callee_allocates": ("    call fill(n, s, t0)", ":26:", "'init' allocates or frees"),
    "whole_assignment": ("    allocate(s2%t(n))\n    s2%t = t0\n    s = s2", ":28:",
                         "assigns the whole of 's'"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_allocations_adfort_cannot_follow_are_refused(case, tmp_path):
    body, line, message = CASES[case]
    src = tmp_path / "k.f90"
    src.write_text(MODULE.replace("BODY", body))
    out = tmp_path / "k_ad.f90"
    proc = subprocess.run([sys.executable, "-m", "adfort", "diff", str(src), "--routine", "run",
                           "--dep", "cost", "--indep", "t0", "-o", str(out)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    assert f"k.f90{line}" in proc.stderr and message in proc.stderr, proc.stderr
    assert not out.exists()


def test_adjoint_components_follow_the_allocations(tmp_path):
    text = harness.differentiate_text(
        tmp_path, "derived_state_alloc_components.f90",
        (harness.REPO_ROOT / "tests" / "fortran_fixtures"
         / "derived_state_alloc_components.f90").read_text()).lower()
    ret = harness.routine_source(text, "state_run_ret")
    assert "s_adj%t = 0.0_wp" in ret and "deallocate(s%t, s%q, s_adj%t, s_adj%q)" in ret, ret
    # Zeroed where allocated, never before.
    assert ret.index("s_adj%t(") < ret.index("s_adj%t = 0.0_wp"), ret


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_local_with_allocatable_and_scalar_components_deallocated(schedule, tmp_path):
    """A local derived-type variable with allocatable components and a
    scalar one, deallocated before the end: the recording handed the whole
    variable over at its end, its components after their DEALLOCATE (not
    allocated, a crash under split)."""
    import harness
    harness.check_source(tmp_path, "k.f90", """\
! adfort: routine=run dep=x indep=x
! adfort: init n=4 x=0.5:1.5
module spectral_state
  implicit none
  type :: st
    real(8), allocatable :: re(:), im(:)
    integer :: kmax
    real(8) :: scale
  end type
contains
  subroutine analys(n, u, s)
    integer, intent(in) :: n
    real(8), intent(in) :: u(n)
    type(st), intent(inout) :: s
    s%re = u*s%scale
    s%im = 2*u
  end subroutine
  subroutine step(n, x)
    integer, intent(in) :: n
    real(8), intent(inout) :: x(n)
    type(st) :: nl
    allocate(nl%re(n), nl%im(n))
    nl%kmax = n
    nl%scale = 0.5d0
    call analys(n, x**2, nl)
    x = x*nl%re + nl%im*nl%scale
    deallocate(nl%re, nl%im)
  end subroutine
  subroutine run(n, x)
    integer, intent(in) :: n
    real(8), intent(inout) :: x(n)
    call step(n, x)
    call step(n, x)
  end subroutine
end module
""", schedule)
