"""An allocatable module array the differentiated routines set and read
(allocated outside them, by a passive set-up routine): its adjoint, a
variable of the generated module, was never allocated, so the returning
motion added into an unallocated array (a run-time error under
-fcheck=all, undefined otherwise).  It takes the array's shape (bounds
included) and zero at the start of the returning motion."""

import shutil

import pytest

import harness

needs_gfortran = pytest.mark.skipif(shutil.which("gfortran") is None, reason="no gfortran")

SOURCE = """\
! adfort: routine=run dep=y indep=x
! adfort: init n=4 x=0.5:1.5
module m3b
  implicit none
  real(8), allocatable :: w(:), v(:, :)
contains
  subroutine init(n)
    integer, intent(in) :: n
    if (.not. allocated(w)) allocate(w(0:n-1), v(n, 2))
  end subroutine init
  subroutine fill(n, x)
    integer, intent(in) :: n
    real(8), intent(in) :: x(n)
    w = x*x
    v(:, 1) = sin(x)
    v(:, 2) = w*v(:, 1)
  end subroutine fill
  subroutine use_it(y)
    real(8), intent(out) :: y
    y = sum(w**2) + sum(v)
  end subroutine use_it
  subroutine run(n, x, y)
    integer, intent(in) :: n
    real(8), intent(in) :: x(n)
    real(8), intent(out) :: y
    !$adfort passive
    call init(n)
    {body}
  end subroutine run
end module m3b
"""

BODIES = {
    "in callees only": "call fill(n, x)\n    call use_it(y)",
    "in the routine itself": "w = x*x\n    v(:, 1) = w\n    v(:, 2) = 2*w\n"
                             "    y = sum(w**2) + sum(v**2)",
}


@needs_gfortran
@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("case", sorted(BODIES))
def test_allocatable_module_array_adjoint_takes_its_shape(case, schedule, tmp_path):
    result = harness.check_source(tmp_path, "k.f90",
                                  SOURCE.replace("{body}", BODIES[case]), schedule)
    assert "ALLOCATE(w_adj, mold=w)" in result.generated.read_text()
