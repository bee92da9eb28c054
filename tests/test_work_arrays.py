"""Automatic arrays of generated routines passed as sections of one buffer
(adfort/transformations/work_arrays.py).  The fixture
column_work_arrays.f90 is FD-checked under both schedules with the other
fixtures at its init sizes (column routines on the stack buffer, the
smoother's halo array allocated); here the same at sizes that swap the two
paths and at one level, and the shape of the generated code."""

import dataclasses
import re

import pytest

import harness
from adfort.api import differentiate_file
from adfort.schedules import JointReversalSchedule, SplitReversalSchedule

FIXTURE = harness.REPO_ROOT / "tests" / "fortran_fixtures" / "column_work_arrays.f90"


def _part(text, name):
    low = text.lower()
    start = low.index(f"subroutine {name}(")
    return low[start:low.index(f"end subroutine {name}\n", start)]


def _generate(schedule, **options):
    return differentiate_file(str(FIXTURE), ["t", "cost"], ["t", "kdiff"], schedule,
                              routine="physics_step", options=options or None)[0]


def test_automatic_arrays_become_sections_of_one_buffer():
    text = _generate(SplitReversalSchedule())
    for motion in ("mix_column_rec", "mix_column_ret", "smooth_field_rec", "smooth_field_ret"):
        body, wrapper = _part(text, motion + "_body"), _part(text, motion)
        header = wrapper.split("\n")[0]
        # Same name and arguments as before: callers are unchanged.
        assert "_body" not in header, header
        # No array of the routine's own in the wrapper but the buffers.
        own = [line for line in wrapper.split("\n") if "dimension(" in line
               and "intent(" not in line]
        assert all(re.search(r":: work_(stack|heap)(_\d+)?$", line) for line in own), wrapper
        assert "call " + motion + "_body(" in wrapper, wrapper
        # The arrays are the body's dummy arguments, declared as before.
        assert re.search(r"dimension\(0:nlev \+ 1,ncol\) :: g(_adj)?\n"
                         r"|dimension\(0:nlev,2\) :: flux(_adj)?\n", body), body
    mix = _part(text, "mix_column_rec")
    # Reals, integers and logicals each in a buffer of their own.
    assert re.search(r"integer, dimension\(2048\) :: work_stack_\d", mix), mix
    assert re.search(r"logical, dimension\(2048\) :: work_stack_\d", mix), mix
    assert "work_extent = max(0, nlev + 1)" in mix, mix


def test_pooling_can_be_turned_off():
    text = _generate(SplitReversalSchedule(), pool_work_arrays=False)
    assert "_body" not in text.lower() and "work_stack" not in text.lower(), text
    assert "dimension(0:nlev,2) :: flux\n" in _part(text, "mix_column_rec")


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("sizes", [{"nlev": "600", "ncol": "2"}, {"nlev": "1", "ncol": "3"}],
                         ids=["column-allocated", "one-level"])
def test_gradients_on_both_paths(schedule, sizes, workdir):
    # 600 levels: the column routines' arrays overflow the stack buffer
    # (allocated), the smoother's fit; one level: extents of 1 and 2.
    meta = harness.parse_metadata(FIXTURE)
    meta = dataclasses.replace(meta, init={**meta.init, **sizes})
    res = harness.check_fixture(FIXTURE, schedule, workdir, metadata=meta)
    assert res.rel_err < 1e-6, res.describe()
    assert res.primal_err < 1e-10, res.describe()


def test_body_name_clash_is_resolved(tmp_path):
    source = tmp_path / "clash.f90"
    source.write_text(FIXTURE.read_text().replace(
        "end module column_work", "  subroutine mix_column_rec_body()\n"
        "  end subroutine mix_column_rec_body\nend module column_work"))
    text = differentiate_file(str(source), ["t", "cost"], ["t", "kdiff"],
                              JointReversalSchedule(), routine="physics_step")[0].lower()
    assert "subroutine mix_column_rec_body_1(" in text, text
    assert "call mix_column_rec_body_1(" in _part(text, "mix_column_rec")


SMOOTHER = """\
module grow_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
contains
  subroutine smooth(n, x)
    integer, intent(in) :: n
    real(dp), intent(inout) :: x(n)
    real(dp) :: w(n), v(n)
    integer :: k
    w = x
    v(1) = w(1)
    v(n) = w(n)
    do k = 2, n - 1
      v(k) = 0.25_dp*w(k-1) + 0.5_dp*w(k) + 0.25_dp*w(k+1)
    end do
    x = v
  end subroutine smooth
end module grow_mod
"""

def test_saved_buffer_grows_between_calls(tmp_path):
    """The heap buffer of a wrapper is kept between calls (saved, never
    freed: freeing it made every call fault its pages in again) and made
    larger when a call needs more: calls of growing, shrinking and stack
    sizes in one run give the adjoint of each size (checked against the
    transposed smoother computed here)."""
    import subprocess
    (tmp_path / "grow.f90").write_text(SMOOTHER)
    text = differentiate_file(str(tmp_path / "grow.f90"), ["x"], ["x"],
                              SplitReversalSchedule(), routine="smooth")[0]
    (tmp_path / "grow_ad.f90").write_text(text)
    wrapper = _part(text, "smooth_rev")
    assert re.search(r"allocatable, dimension\(:\), save :: work_heap", wrapper), wrapper
    assert "deallocate(work_heap)" in wrapper and "size(work_heap) <" in wrapper, wrapper
    driver = """\
program grow
  use grow_mod
  use grow_mod_ad
  implicit none
  integer, parameter :: sizes(5) = [3000, 6000, 4000, 100, 7000]
  integer :: i, n, k
  real(dp), allocatable :: x(:), ybar(:), expect(:)
  real(dp) :: err
  err = 0.0_dp
  do i = 1, 5
    n = sizes(i)
    allocate(x(n), ybar(n), expect(n))
    call random_number(x)
    call random_number(ybar)
    ! The smoother's transpose applied to ybar.
    expect = 0.0_dp
    expect(1) = ybar(1) + 0.25_dp*ybar(2)
    expect(n) = ybar(n) + 0.25_dp*ybar(n-1)
    do k = 2, n - 1
      expect(k) = expect(k) + 0.5_dp*ybar(k)
      if (k > 2) expect(k) = expect(k) + 0.25_dp*ybar(k-1)
      if (k < n - 1) expect(k) = expect(k) + 0.25_dp*ybar(k+1)
    end do
    call smooth_rev(n, x, ybar)
    err = max(err, maxval(abs(ybar - expect)))
    deallocate(x, ybar, expect)
  end do
  write(*, '(a, es12.4)') 'ERR', err
end program grow
"""
    (tmp_path / "driver.f90").write_text(driver)
    fc = harness.gfortran()
    subprocess.run([fc, "-O1", "-fcheck=all", "grow.f90", "grow_ad.f90", "driver.f90",
                    "-o", "grow"], cwd=tmp_path, check=True, capture_output=True)
    out = subprocess.run([str(tmp_path / "grow")], cwd=tmp_path, check=True,
                         capture_output=True, text=True).stdout
    assert float(out.split()[-1]) < 1e-14, out
