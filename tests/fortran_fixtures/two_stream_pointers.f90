! Shortwave two-stream solver in the RRTMG/ecRad style: per spectral band,
! layer transmittances and the downward/upward fluxes are computed through
! pointers aliasing columns of work arrays (flux_up => work(:, 1),
! tr => trans(:, ib) re-associated in every band), then the broadband net
! flux is accumulated.  Output: the net flux at each level.
! adfort: routine=sw_two_stream dep=flux_net indep=tau,ssa,flux_toa
! adfort: init nlay=6 nbnd=3 tau=0.05:0.6 ssa=0.1:0.9 flux_toa=300:500 sfc_alb=0.2 mu0=0.6
module rad_kinds
  implicit none
  integer, parameter :: rb = selected_real_kind(12, 300)
end module rad_kinds

module two_stream
  use rad_kinds, only: rb
  implicit none
contains
  subroutine sw_two_stream(nlay, nbnd, tau, ssa, sfc_alb, mu0, flux_toa, flux_net)
    integer, intent(in) :: nlay, nbnd
    real(rb), intent(in) :: tau(nlay, nbnd), ssa(nlay, nbnd)
    real(rb), intent(in) :: sfc_alb, mu0
    real(rb), intent(in) :: flux_toa(nbnd)
    real(rb), intent(out) :: flux_net(nlay + 1)
    real(rb), target :: work(nlay + 1, 2)
    real(rb), target :: trans(nlay, nbnd)
    real(rb), pointer :: flux_up(:), flux_dn(:), tr(:)
    real(rb) :: refl
    integer :: ib, k

    flux_net = 0.0_rb
    flux_up => work(:, 1)
    flux_dn => work(:, 2)
    do ib = 1, nbnd
      tr => trans(:, ib)
      do k = 1, nlay
        tr(k) = exp(-tau(k, ib) * (1.0_rb - 0.5_rb * ssa(k, ib)) / mu0)
      end do
      flux_dn(1) = flux_toa(ib)
      do k = 1, nlay
        flux_dn(k + 1) = flux_dn(k) * tr(k)
      end do
      flux_up(nlay + 1) = sfc_alb * flux_dn(nlay + 1)
      do k = nlay, 1, -1
        refl = 0.5_rb * ssa(k, ib) * (1.0_rb - tr(k))
        flux_up(k) = flux_up(k + 1) * tr(k) + refl * flux_dn(k)
      end do
      flux_net = flux_net + flux_dn - flux_up
    end do
  end subroutine sw_two_stream
end module two_stream
