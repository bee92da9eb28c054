! Potential energy and stratification of an ocean water column.  The
! equation of state lives in src/ (module seawater_eos, which uses
! ocean_kinds): adfort finds both through -I src.
module column_energy
  use ocean_kinds, only: wp, grav, rho0
  use seawater_eos, only: density, buoyancy_frequency
  implicit none
contains
  ! pe: potential energy anomaly of the column (MJ m-2); strat: a smooth
  ! measure of the stratification, sum over the interfaces of
  ! sqrt((N^2/N2ref)**2 + 1).
  subroutine column_pe(nz, temp, salt, dz, pe, strat)
    integer, intent(in) :: nz
    real(wp), intent(in) :: temp(nz), salt(nz), dz
    real(wp), intent(out) :: pe, strat
    real(wp), parameter :: n2ref = 1.0e-4_wp
    real(wp) :: rho(nz), n2(nz - 1), z(nz)
    integer :: k
    pe = 0.0_wp
    do k = 1, nz
      z(k) = -(real(k, wp) - 0.5_wp) * dz
      rho(k) = density(temp(k), salt(k), z(k))
      pe = pe + 1.0e-6_wp * grav * (rho(k) - rho0) * z(k) * dz
    end do
    call buoyancy_frequency(nz, rho, z, n2)
    strat = 0.0_wp
    do k = 1, nz - 1
      strat = strat + sqrt((n2(k) / n2ref)**2 + 1.0_wp)
    end do
  end subroutine column_pe
end module column_energy
