! Grey longwave radiation of an atmospheric column: emissivity from water
! vapour and a CO2 optical-depth factor, cooling proportional to
! emissivity * T**4, and the outgoing longwave radiation as a function of
! the whole column.
module radiation
  implicit none
  integer, parameter :: rp = kind(1.0d0)
  real(rp), parameter :: sigma = 5.67e-8_rp, t_ref = 250.0_rp
contains
  real(rp) function emissivity(q, co2fac)
    real(rp), intent(in) :: q, co2fac
    emissivity = 1.0_rp - exp(-(40.0_rp * q + co2fac))
  end function emissivity

  subroutine radiative_cooling(nz, t, q, dt, co2fac)
    integer, intent(in) :: nz
    real(rp), intent(inout) :: t(nz)
    real(rp), intent(in) :: q(nz), dt, co2fac
    integer :: k
    do k = 1, nz
      t(k) = t(k) - dt * 1.5_rp * emissivity(q(k), co2fac) * (t(k) / t_ref)**4
    end do
  end subroutine radiative_cooling

  real(rp) function outgoing_lw(nz, t, q, co2fac)
    integer, intent(in) :: nz
    real(rp), intent(in) :: t(nz), q(nz), co2fac
    real(rp) :: trans
    integer :: k
    ! emission of each layer attenuated by the layers above (k = nz top)
    outgoing_lw = 0.0_rp
    trans = 1.0_rp
    do k = nz, 1, -1
      outgoing_lw = outgoing_lw + trans * emissivity(q(k), co2fac) * sigma * t(k)**4
      trans = trans * (1.0_rp - emissivity(q(k), co2fac))
    end do
  end function outgoing_lw
end module radiation
