! Two-stream-like shortwave heating of a column, written the way older
! physics code is: its work variables carry the names of intrinsics
! (size, scale, count, index, sign, max).  Inside the routine those names
! are the variables, but the adjoint needs the intrinsics SIZE (to tape the
! transmission array), SIGN, MAX and MERGE (partials), so adfort renames
! the locals in the generated motions.
! adfort: routine=sw_heating dep=heat,absorbed indep=tau,albedo
! adfort: init n=14 mu0=0.6 s0=1361 tau=0.02:0.4 albedo=0.05:0.6
module shortwave_intrinsic_names
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine sw_heating(n, mu0, s0, tau, albedo, heat, absorbed)
    integer, intent(in) :: n
    real(wp), intent(in) :: mu0, s0
    real(wp), intent(in) :: tau(n)
    real(wp), intent(in) :: albedo
    real(wp), intent(out) :: heat(n)
    real(wp), intent(out) :: absorbed
    real(wp) :: trans(0:n)
    real(wp) :: scale, sign, max, flux_top, reflected
    integer :: size, count, index

    size = n
    scale = s0*mu0
    ! downward beam through each layer, Beer-Lambert with a path factor
    trans(0) = 1.0_wp
    do index = 1, size
      trans(index) = trans(index - 1)*exp(-tau(index)/mu0)
    end do
    ! the surface reflects part of what arrives; the reflected beam is
    ! attenuated diffusely on its way up (path factor 1.66)
    reflected = albedo*trans(size)
    count = 0
    do index = size, 1, -1
      sign = 1.0_wp
      if (tau(index) > 0.2_wp) then
        count = count + 1
        sign = -1.0_wp
      end if
      max = abs(sign*tau(index))**1.5_wp
      heat(index) = scale*(trans(index - 1) - trans(index)) &
                    + scale*reflected*(1.0_wp - exp(-1.66_wp*tau(index))) &
                    + 0.01_wp*max*count
      reflected = reflected*exp(-1.66_wp*tau(index))
    end do
    flux_top = scale*reflected
    absorbed = sum(heat) - flux_top
    trans = 0.0_wp
  end subroutine sw_heating
end module shortwave_intrinsic_names
