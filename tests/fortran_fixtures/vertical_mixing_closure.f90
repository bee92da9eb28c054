! Vertical turbulent mixing of wind and of the potential temperature
! anomaly about a stably stratified reference profile (lapse gamma) in a
! column, with the eddy diffusivity chosen by SELECT CASE on a character
! option: 'constant', 'louis' (Richardson-number damping, stable side) or
! 'mixing-length' (Prandtl mixing length times the shear).  Explicit
! steps; fluxes at interfaces k+1/2, zero flux at top and bottom.
! adfort: routine=vertical_mixing dep=u,theta indep=u,theta,k0
! adfort: init nz=25 nt=15 closure='louis' dz=50 dt=20 u=2:12 theta=-0.05:0.05 k0=5:15
! adfort: bench nz=5000 nt=200
module pbl_mixing_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: grav = 9.81_wp, theta_ref = 300.0_wp
  real(wp), parameter :: gamma = 0.004_wp     ! reference d(theta)/dz [K/m]
contains
  subroutine vertical_mixing(nz, nt, closure, dz, dt, k0, u, theta)
    integer, intent(in) :: nz, nt
    character(len=*), intent(in) :: closure
    real(wp), intent(in) :: dz, dt, k0
    real(wp), intent(inout) :: u(nz), theta(nz)
    real(wp) :: kh(nz - 1), fu(0:nz), ft(0:nz)
    real(wp) :: shear2, n2, ri, lmix
    integer :: k, step
    do step = 1, nt
      do k = 1, nz - 1
        shear2 = ((u(k + 1) - u(k))/dz)**2 + 1.0e-4_wp
        n2 = grav/theta_ref*(gamma + (theta(k + 1) - theta(k))/dz)
        select case (closure)
        case ('constant')
          kh(k) = k0
        case ('louis')
          ri = n2/shear2
          kh(k) = k0/(1.0_wp + 10.0_wp*ri)**2
        case ('mixing-length')
          lmix = 0.4_wp*k*dz/(1.0_wp + 0.4_wp*k*dz/150.0_wp)
          kh(k) = k0*0.01_wp + lmix**2*sqrt(shear2)
        case default
          kh(k) = 0.0_wp
        end select
      end do
      fu(0) = 0.0_wp
      ft(0) = 0.0_wp
      fu(nz) = 0.0_wp
      ft(nz) = 0.0_wp
      fu(1:nz - 1) = -kh*(u(2:nz) - u(1:nz - 1))/dz
      ft(1:nz - 1) = -kh*(theta(2:nz) - theta(1:nz - 1))/dz
      u = u - dt*(fu(1:nz) - fu(0:nz - 1))/dz
      theta = theta - dt*(ft(1:nz) - ft(0:nz - 1))/dz
    end do
  end subroutine vertical_mixing
end module pbl_mixing_mod
