! Relaxation of a layer-thickness field towards its mean with a WHERE
! whose assignment reads the array it assigns as a whole (sum(h)): Fortran
! evaluates the right-hand side, the sum included, before assigning any
! element, so the sum is that of the incoming h.  A second WHERE assigns
! from the reversed array (a neighbour exchange) and a WHERE statement
! with an ELSEWHERE-free mask on the result.
! adfort: routine=relax dep=h,cost indep=h
! adfort: init n=9 h=-1:3
subroutine relax(n, h, cost)
  integer, intent(in) :: n
  real(8), intent(inout) :: h(n)
  real(8), intent(out) :: cost
  where (h > 0.0d0)
    h = 0.5d0*(h + sum(h)/n)
  end where
  where (h(1:n-1) < 1.5d0)
    h(2:n) = h(2:n) + 0.25d0*h(1:n-1)**2
  end where
  where (h > 2.0d0) h = 2.0d0 + log(h - 1.0d0)
  cost = sum(h**2)
end subroutine relax
