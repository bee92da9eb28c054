"""Checkpointing schedules (adfort/checkpointing.py): every step reversed
once, in order, from the state it had; at most the snapshots allowed; the
binomial bound on forward runs; the Fortran module the generated code
carries gives the very same actions as the Python reference."""

import shutil
import subprocess

import pytest

from adfort.checkpointing import (
    FORTRAN_MODULE, binomial_actions, periodic_actions, periodic_slots, repetitions,
    simulate)

STEPS = [0, 1, 2, 3, 4, 5, 7, 19, 20, 21, 97, 256, 1009]
SNAPSHOTS = [1, 2, 3, 5, 20]


@pytest.mark.parametrize("snapshots", SNAPSHOTS)
def test_binomial_schedule_is_valid_and_within_its_bound(snapshots):
    for steps in STEPS + [snapshots, snapshots + 1]:
        runs, used = simulate(binomial_actions(steps, snapshots), steps, snapshots)
        assert used <= snapshots
        if steps:
            # Each step runs forward at most t times (the first sweep
            # included), besides its recording run.
            assert max(runs) <= repetitions(steps, snapshots), (steps, snapshots)


def test_binomial_figures_of_the_issue():
    # 10^4 steps, 20 snapshots: t = 4, so at most 3 runs of a step beyond the
    # first sweep; the total stays within 0.2 % of Griewank-Walther's
    # minimum t*l - C(c + t, t - 1).
    steps, snapshots = 10_000, 20
    runs, used = simulate(binomial_actions(steps, snapshots), steps, snapshots)
    assert repetitions(steps, snapshots) == 4 and max(runs) == 4 and used == 20
    from math import comb
    minimum = 4 * steps - comb(snapshots + 4, 3)
    assert minimum <= sum(runs) <= minimum * 1.002


@pytest.mark.parametrize("every", [1, 2, 3, 10])
def test_periodic_schedule_is_valid(every):
    for steps in STEPS:
        runs, used = simulate(periodic_actions(steps, every), steps,
                              periodic_slots(steps, every))
        assert not runs or max(runs) <= 2


def test_bad_parameters():
    with pytest.raises(ValueError):
        binomial_actions(10, 0)
    with pytest.raises(ValueError):
        periodic_actions(10, 0)


@pytest.mark.skipif(shutil.which("gfortran") is None, reason="no gfortran")
def test_fortran_module_gives_the_same_actions(tmp_path):
    cases = [("binomial", n, s) for n in STEPS for s in (1, 2, 3, 20)] + \
            [("periodic", n, k) for n in STEPS for k in (1, 3, 10)]
    calls = "\n".join(
        f"  call adfort_{kind}_schedule({n}, {p}, actions, nact)\n"
        f"  write (*, '(a)') 'case'\n"
        f"  do i = 1, nact\n"
        f"    write (*, '(3i8)') actions(:, i)\n"
        f"  end do" for kind, n, p in cases)
    (tmp_path / "schedules.f90").write_text(FORTRAN_MODULE)
    (tmp_path / "driver.f90").write_text(
        "program driver\n  use adfort_checkpointing\n  implicit none\n"
        "  integer, allocatable :: actions(:, :)\n  integer :: nact, i\n"
        f"{calls}\nend program driver\n")
    build = subprocess.run(["gfortran", "-std=f2008", "-Wall", "-Werror", "-O1",
                            "schedules.f90", "driver.f90", "-o", "driver"],
                           cwd=tmp_path, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    out = subprocess.run(["./driver"], cwd=tmp_path, capture_output=True, text=True,
                         check=True).stdout
    blocks = out.split("case\n")[1:]
    assert len(blocks) == len(cases)
    for (kind, n, p), block in zip(cases, blocks):
        got = [tuple(int(v) for v in line.split()) for line in block.splitlines()]
        want = binomial_actions(n, p) if kind == "binomial" else periodic_actions(n, p)
        assert got == want, (kind, n, p)
