! A "vendor" bulk-formula library routine: sensible heat flux from the
! ice surface to the air with a stability-dependent transfer coefficient.
! adfort is NOT given this file (it plays a library without source); it is
! only compiled and linked.  Its adjoint is hand-written in
! bulk_flux_library_ad.f90 and passed with --adjoint-lib.
subroutine bulk_heat_flux(n, ts, ta, wind, qh)
  implicit none
  integer, intent(in) :: n
  double precision, intent(in) :: ts(n), ta(n), wind
  double precision, intent(out) :: qh(n)
  double precision, parameter :: rho_cp_ch = 1.3d0 * 1004.0d0 * 1.3d-3
  integer :: i
  do i = 1, n
    qh(i) = rho_cp_ch * wind * (ts(i) - ta(i)) &
            * (1.0d0 + 0.25d0 * tanh((ts(i) - ta(i)) / 10.0d0))
  end do
end subroutine bulk_heat_flux
