"""Copies of the user's routines the generated module holds (a private
routine of the module, a routine made from an internal procedure, each
run as it is under the joint schedule): they keep OPTIONAL, and declare
no index of a WHERE PSyclone read into a loop that adfort lowered itself
(an unused variable, an error under the strict compile of the checks)."""

import pytest

import harness

CASES = {
    "private routine with an optional argument": """\
        ! adfort: routine=run dep=cost indep=x
        ! adfort: init n=4 x=0.5:1.5
        ! adfort: shape x=n
        module m
          implicit none
          private
          public :: run
        contains
          subroutine scale(q, rate)
            real(8), intent(inout) :: q(:)
            real(8), intent(in), optional :: rate
            real(8) :: k
            k = 0.5d0
            if (present(rate)) k = rate
            q = q * exp(-k*q)
          end subroutine scale

          subroutine run(n, x, cost)
            integer, intent(in) :: n
            real(8), intent(in) :: x(:)
            real(8), intent(out) :: cost
            real(8) :: q(n)
            integer :: it
            q = x
            do it = 1, 2
              call scale(q, rate=0.3d0)
            end do
            cost = sum(q**2)
          end subroutine run
        end module m
        """,
    "internal procedure with a WHERE": """\
        ! adfort: routine=run dep=cost indep=x
        ! adfort: init n=5 x=-1.0:1.5
        ! adfort: shape x=n
        module m
          implicit none
        contains
          subroutine step(c)
            real(8), intent(inout) :: c(:)
            c = c*c - 0.3d0
            call clip()
          contains
            subroutine clip()
              where (c < 0.0d0) c = 0.0d0
            end subroutine clip
          end subroutine step

          subroutine run(n, x, cost)
            integer, intent(in) :: n
            real(8), intent(in) :: x(n)
            real(8), intent(out) :: cost
            real(8) :: c(n)
            c = x
            call step(c)
            cost = sum(c**2)
          end subroutine run
        end module m
        """,
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_copies_compile_strictly_and_differentiate(case, schedule, tmp_path):
    harness.check_source(tmp_path, "k.f90", CASES[case], schedule)
