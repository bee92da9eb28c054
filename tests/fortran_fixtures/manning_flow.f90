! Open-channel flow in a rectangular channel: Manning discharge, Froude
! number and the Chezy coefficient.
! adfort: routine=manning dep=q,froude,chezy indep=width,depth,slope,n_man
! adfort: init width=2:20 depth=0.3:3 slope=0.0001:0.005 n_man=0.02:0.06
module channel_mod
  implicit none
  integer, parameter :: wp = selected_real_kind(12)
contains
  subroutine manning(width, depth, slope, n_man, q, froude, chezy)
    real(wp), intent(in) :: width, depth, slope, n_man
    real(wp), intent(out) :: q, froude, chezy
    real(wp), parameter :: g = 9.81_wp
    real(wp) :: area, perim, radius, vel
    area = width*depth
    perim = width + 2.0_wp*depth
    radius = area/perim
    vel = radius**(2.0_wp/3.0_wp)*sqrt(slope)/n_man
    q = area*vel
    froude = vel/sqrt(g*depth)
    chezy = radius**(1.0_wp/6.0_wp)/n_man
  end subroutine manning
end module channel_mod
