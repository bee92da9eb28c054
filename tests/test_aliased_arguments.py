"""One variable given to several active dummies of a call (legal when the
callee writes none of them, or writes one that does not overlap the
others): the returning motion passed the same adjoint storage to each
dummy, and gfortran's copy-in/copy-out of a strided section brought back
one increment only (half the gradient lost, no message).  The read-only
occurrences now get zeroed scratch adjoints added back after the call
(adfort.transformations.call._aliased_inputs)."""

import pytest

import harness

CALLEE = """\
        module {m}
          implicit none
        contains
          subroutine prod2(m, a, b, s)
            integer, intent(in) :: m
            real(8), intent(in) :: a(m), b(m)
            real(8), intent(out) :: s
            s = sum(a*b)
          end subroutine prod2
          subroutine scale_sum(m, a, b, s)
            integer, intent(in) :: m
            real(8), intent(in) :: a(m), b
            real(8), intent(out) :: s
            s = b**2*sum(a)
          end subroutine scale_sum
          subroutine half_copy(m, src, dst, c)
            integer, intent(in) :: m
            real(8), intent(in) :: src(m), c
            real(8), intent(inout) :: dst(m)
            dst = dst*c + src**2
          end subroutine half_copy
          subroutine outer(n, q, cost)
            integer, intent(in) :: n
            real(8), intent(inout) :: q(n)
            real(8), intent(out) :: cost
            real(8) :: s
            {call}
            cost = s + sum(q**2)
          end subroutine outer
        end module {m}
        """

CALLS = {
    "same_strided_section": "call prod2(n/2, q(1:n:2), q(1:n:2), s)",
    "section_and_its_element": "call scale_sum(n/2, q(1:n:2), q(3), s)",
    "neighbours_shifted_by_one": "call prod2(n - 1, q(1:n - 1), q(2:n), s)",
    "reversed_and_strided": "call prod2(n/2, q(n:n/2 + 1:-1), q(1:n:2), s)",
    "read_half_write_half": "s = q(1)\n            call half_copy(n/2, q(1:n/2), q(n/2 + 1:n), 0.5d0)",
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("case", sorted(CALLS))
def test_a_variable_given_to_several_dummies(case, schedule, tmp_path):
    text = "        ! adfort: routine=outer dep=cost,q indep=q\n" \
        "        ! adfort: init n=8 q=0.5:1.5 cost=0\n" + \
        CALLEE.replace("{m}", f"m_{case}").replace("{call}", CALLS[case])
    harness.check_source(tmp_path, "k.f90", text, schedule)
