! Radiative-convective single-column model: radiation and convection live
! in two extra files given on the adfort command line.  The dependent is
! the time-mean outgoing longwave radiation.
module column_model
  use radiation, only: rp, radiative_cooling, outgoing_lw
  use convection, only: convective_adjust
  implicit none
contains
  subroutine column_run(nz, nt, dt, t, q, co2fac, tau, olr_mean)
    integer, intent(in) :: nz, nt
    real(rp), intent(in) :: dt, co2fac, tau
    real(rp), intent(inout) :: t(nz), q(nz)
    real(rp), intent(out) :: olr_mean
    integer :: step
    olr_mean = 0.0_rp
    do step = 1, nt
      call radiative_cooling(nz, t, q, dt, co2fac)
      call convective_adjust(nz, t, q, dt, tau)
      olr_mean = olr_mean + outgoing_lw(nz, t, q, co2fac) / real(nt, rp)
    end do
  end subroutine column_run
end module column_model
