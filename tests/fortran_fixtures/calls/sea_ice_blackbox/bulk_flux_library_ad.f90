! Hand-written adjoint of the library routine bulk_heat_flux, following
! adfort's calling convention: each active argument followed by its
! adjoint; adjoints of inputs incremented, of the output consumed (zeroed).
! wind is passive at the call site in sea_ice.f90, so it has no adjoint.
subroutine bulk_heat_flux_rev(n, ts, ts_adj, ta, ta_adj, wind, qh, qh_adj)
  implicit none
  integer, intent(in) :: n
  double precision, intent(in) :: ts(n), ta(n), wind
  double precision, intent(inout) :: ts_adj(n), ta_adj(n)
  double precision, intent(out) :: qh(n)
  double precision, intent(inout) :: qh_adj(n)
  double precision, parameter :: rho_cp_ch = 1.3d0 * 1004.0d0 * 1.3d-3
  double precision :: d, th, dqdd
  integer :: i
  call bulk_heat_flux(n, ts, ta, wind, qh)
  do i = 1, n
    d = ts(i) - ta(i)
    th = tanh(d / 10.0d0)
    dqdd = rho_cp_ch * wind * ((1.0d0 + 0.25d0 * th) &
                               + d * 0.25d0 * (1.0d0 - th**2) / 10.0d0)
    ts_adj(i) = ts_adj(i) + dqdd * qh_adj(i)
    ta_adj(i) = ta_adj(i) - dqdd * qh_adj(i)
    qh_adj(i) = 0.0d0
  end do
end subroutine bulk_heat_flux_rev
