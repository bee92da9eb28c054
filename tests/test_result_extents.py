"""Array results whose extents the function's dummy arguments give
(``w(n)``, ``w(0:n)``, ``w(size(v))``): the caller keeps such a value in a
temporary sized from the actual arguments at the call.  The temporary was
declared with the callee's declaration as it stood, which in the caller
named the caller's own ``n`` (a wrong primal and gradient, or a bound
mismatch) or a ``v`` it does not have (code that did not compile)."""

import textwrap

import pytest

import harness

CASES = {
    # f(n-1, x(2:n)): n-1 values, not the caller's n.
    "scalar_dummy": """\
        ! adfort: routine=r dep=y indep=x
        ! adfort: init n=5 x=0.5:2
        module m
        contains
          pure function f(n, v) result(w)
            integer, intent(in) :: n
            real(8), intent(in) :: v(n)
            real(8) :: w(n)
            w = v**2
          end function f
          subroutine r(n, x, y)
            integer, intent(in) :: n
            real(8), intent(in) :: x(n)
            real(8), intent(out) :: y
            y = minval(f(n-1, x(2:n))) + sum(f(n-2, x(3:n)))
          end subroutine r
        end module m
        """,
    # w(0:n) with n a loop index at the call.
    "loop_index": """\
        ! adfort: routine=r dep=y indep=x
        ! adfort: init n=6 x=0.5:2
        module m
        contains
          function f0(n, v) result(w)
            integer, intent(in) :: n
            real(8), intent(in) :: v(0:n)
            real(8) :: w(0:n)
            w = v*v(0)
          end function f0
          subroutine r(n, x, y)
            integer, intent(in) :: n
            real(8), intent(in) :: x(n)
            real(8), intent(out) :: y
            real(8) :: z(n)
            integer :: k
            z = 0d0
            do k = 2, n - 1
              z(1:k) = z(1:k) + f0(k - 1, x(n-k+1:n))
            end do
            y = sum(z**2) + maxval(f0(n/2 - 1, x(1:n:2)))
          end subroutine r
        end module m
        """,
    # SIZE of an assumed-shape dummy, of an explicit-shape one; a DO WHILE
    # condition (evaluated again at each trip).
    "size_of_dummy": """\
        ! adfort: routine=r dep=y indep=x
        ! adfort: init n=4 x=0.5:2
        module m
          implicit none
        contains
          function damped(v) result(w)
            real(8), intent(in) :: v(:)
            real(8) :: w(size(v))
            w = v/(1d0 + abs(v))
          end function damped
          function pairs(m, v) result(w)
            integer, intent(in) :: m
            real(8), intent(in) :: v(2, m)
            real(8) :: w(size(v))
            w = reshape(v, [2*m])**2
          end function pairs
          subroutine r(n, x, y)
            integer, intent(in) :: n
            real(8), intent(in) :: x(n)
            real(8), intent(out) :: y
            integer :: i
            y = sum(damped(x)) + sum(damped(x(2:n))) + sum(pairs(n/2, x))
            i = 0
            do while (sum(damped(x(1:n-i))) > 1d0)
              i = i + 1
              y = y + x(i)*y
            end do
          end subroutine r
        end module m
        """,
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_result_sized_by_the_actual_arguments(case, schedule, tmp_path):
    harness.check_source(tmp_path, f"{case}.f90", CASES[case], schedule)


def test_result_sized_by_an_element_of_a_dummy_is_refused(tmp_path):
    from adfort.api import differentiate_file
    from adfort.errors import AdfortError
    from adfort.schedules import SplitReversalSchedule
    path = tmp_path / "e.f90"
    path.write_text(textwrap.dedent("""\
        module m
        contains
          function f(ns, v) result(w)
            integer, intent(in) :: ns(2)
            real(8), intent(in) :: v(:)
            real(8) :: w(ns(1))
            w = v(1:ns(1))**2
          end function f
          subroutine r(x, y)
            real(8), intent(in) :: x(4)
            real(8), intent(out) :: y
            y = sum(f([3, 1], x))
          end subroutine r
        end module m
        """))
    with pytest.raises(AdfortError) as err:
        differentiate_file(str(path), ["y"], ["x"], SplitReversalSchedule())
    assert "result of function 'f'" in err.value.message and "'ns'" in err.value.message
    assert err.value.location == f"{path}:12"


def test_allocatable_result_is_refused(tmp_path):
    """A function with an ALLOCATABLE result gave code that did not compile
    (its returning motion allocated and freed an intent(in) argument, and
    its recording motion freed the result before returning)."""
    from adfort.api import differentiate_file
    from adfort.errors import AdfortError
    from adfort.schedules import SplitReversalSchedule
    path = tmp_path / "a.f90"
    path.write_text(textwrap.dedent("""\
        module m
          implicit none
        contains
          function twice(x) result(r)
            real(8), intent(in) :: x(:)
            real(8), allocatable :: r(:)
            allocate(r(size(x)))
            r = 2d0*x*x
          end function twice
          subroutine run(n, x, y)
            integer, intent(in) :: n
            real(8), intent(in) :: x(n)
            real(8), intent(out) :: y
            y = sum(twice(x))
          end subroutine run
        end module m
        """))
    with pytest.raises(AdfortError) as err:
        differentiate_file(str(path), ["y"], ["x"], SplitReversalSchedule())
    assert "function 'twice' has an ALLOCATABLE result 'r'" in err.value.message
    assert err.value.location == f"{path}:4"
