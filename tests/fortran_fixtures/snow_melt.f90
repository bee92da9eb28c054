! Energy-balance snowmelt over one time step: snow albedo adjusted for
! age, surface temperature adjusted for the snowpack, melt limited by the
! available snow (MIN), and an accumulated melt energy (intent(inout),
! dependent only).  The kind is called dp, and some variables end in _adj
! the way a modeller names "adjusted" quantities.
! adfort: routine=snow_step dep=swe,melt_energy,alb_adj indep=swe,tair,alb,sw_in
! adfort: init swe=50:200 tair=1:6 alb=0.6:0.85 sw_in=100:600 age=3 dt=3600
! adfort: init melt_energy=100000:200000
module snow_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: lf = 3.34e5_dp       ! latent heat of fusion [J kg-1]
contains
  subroutine snow_step(swe, tair, alb, sw_in, age, dt, melt_energy, alb_adj)
    real(dp), intent(inout) :: swe          ! snow water equivalent [mm]
    real(dp), intent(in) :: tair, alb, sw_in, dt
    integer, intent(in) :: age              ! days since snowfall
    real(dp), intent(inout) :: melt_energy  ! accumulated melt energy [J m-2]
    real(dp), intent(out) :: alb_adj        ! age-adjusted albedo
    real(dp) :: tair_adj, q_melt, melt
    alb_adj = 0.5_dp + (alb - 0.5_dp)*exp(-0.05_dp*real(age, dp))
    tair_adj = tair - 0.5_dp
    q_melt = (1.0_dp - alb_adj)*sw_in + 12.0_dp*tair_adj
    melt = min(q_melt*dt/lf, swe)
    swe = swe - melt
    melt_energy = melt_energy + melt*lf
  end subroutine snow_step
end module snow_mod
