! Relaxation of humidity columns towards saturation, outside any module
! (external subroutines, F77 argument passing: the caller hands q(1, j)
! to an explicit-shape dummy), with automatic work arrays in the column
! routine.
! adfort: routine=relax_columns dep=q indep=q,tau
! adfort: init nlev=10 ncol=6 tau=0.5:2.0 t=260:300 q=0.002:0.012
subroutine relax_columns(nlev, ncol, tau, t, q)
  implicit none
  integer, intent(in) :: nlev, ncol
  double precision, intent(in) :: tau(ncol), t(nlev, ncol)
  double precision, intent(inout) :: q(nlev, ncol)
  integer :: j
  do j = 1, ncol
    call relax_one(nlev, tau(j), t(1, j), q(1, j))
  end do
end subroutine relax_columns

subroutine relax_one(nlev, tau, t, q)
  implicit none
  integer, intent(in) :: nlev
  double precision, intent(in) :: tau, t(nlev)
  double precision, intent(inout) :: q(nlev)
  double precision :: qs(nlev), w(nlev)
  integer :: k
  do k = 1, nlev
    ! Tetens' saturation specific humidity at 1000 hPa.
    qs(k) = 0.622d0*6.112d0*exp(17.67d0*(t(k) - 273.15d0)/(t(k) - 29.65d0))/1000.0d0
    w(k) = 1.0d0 - exp(-1.0d0/tau)
  end do
  do k = 1, nlev
    q(k) = q(k) + w(k)*(qs(k) - q(k))*q(k)/(q(k) + 0.001d0)
  end do
end subroutine relax_one
