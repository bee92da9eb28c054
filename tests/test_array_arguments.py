"""Array expressions given to a callee's array dummy that carries
derivatives, where no whole array of explicit shape gives the expression
its shape (assumed-shape or allocatable arrays, as model code passes its
fields): the expression is evaluated into an allocated array first, so
that the call's adjoint has a variable to hold the dummy's adjoint.
adfort refused them ("pass a variable")."""

import pytest

import harness

# A leapfrog-style step on assumed-shape fields: the mid-point state
# 0.5*(t + t_old) goes to an explicit-shape density routine, a scaled
# field to a function in an IF condition, a section expression to a
# subroutine in a loop.
SOURCE = """\
! adfort: routine=step dep=t,cost indep=t,t_old,s
! adfort: init n=7 t=5:15 t_old=5:15 s=34:36
! adfort: shape t=n t_old=n s=n
module midpoint_step
  implicit none
contains
  subroutine density(n, temp, sal, rho)
    integer, intent(in) :: n
    real(8), intent(in) :: temp(n), sal(n)
    real(8), intent(out) :: rho(n)
    rho = 1027d0*(1d0 - 1.7d-4*(temp - 10d0) - 5d-6*(temp - 10d0)**2 + 7.6d-4*(sal - 35d0))
  end subroutine density
  real(8) function heat_content(n, temp)
    integer, intent(in) :: n
    real(8), intent(in) :: temp(n)
    heat_content = sum(temp**2)/n
  end function heat_content
  subroutine relax_pair(m, a, b)
    integer, intent(in) :: m
    real(8), intent(in) :: a(m)
    real(8), intent(inout) :: b(m)
    b = b + 0.1d0*a*b/(1d0 + a*a)
  end subroutine relax_pair
  subroutine step(n, t, t_old, s, cost)
    integer, intent(in) :: n
    real(8), intent(inout) :: t(:)
    real(8), intent(in) :: t_old(:), s(:)
    real(8), intent(out) :: cost
    real(8), allocatable :: rho(:)
    integer :: k
    allocate(rho(n))
    call density(n, 0.5d0*(t + t_old), s, rho)
    t = t - 1d-3*(rho - 1027d0)
    if (heat_content(n, 2d0*t - t_old) > 150d0) then
      t = 0.99d0*t
    end if
    do k = 1, 2
      call relax_pair(n - 1, t(2:) - t(:n-1), t(2:))
    end do
    cost = sum(rho*t)*1d-3
    deallocate(rho)
  end subroutine step
end module midpoint_step
"""


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_array_expressions_of_assumed_shape_fields(schedule, tmp_path):
    harness.check_source(tmp_path, "midpoint_step.f90", SOURCE, schedule)
