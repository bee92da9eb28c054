! Tracer transport on a periodic ring by face velocities, MUSCL
! reconstruction with a monotonised-central slope limiter (elemental
! function with SIGN/ABS/MIN), two-stage SSP Runge-Kutta in time.
! Call chain: transport_run (time loop) -> rk2_step -> tendency (face
! fluxes) -> mc_slope (elemental).  Assumed-shape dummies, module
! parameters for the grid.  Cost: mean squared misfit to observations.
! adfort: routine=transport_run dep=misfit indep=q,w
! adfort: init npts=16 nt=4 q=0.2:1.2 w=-0.6:0.6 qobs=0.2:1.2
! adfort: shape q=npts w=npts qobs=npts
! adfort: bench npts=4000 nt=60
module transport_mod
  implicit none
  private
  public :: transport_run, dp
  integer, parameter :: dp = selected_real_kind(12)
  real(dp), parameter :: dx = 1.0_dp/64.0_dp
  real(dp), parameter :: cfl = 0.4_dp
  real(dp), parameter :: dt = cfl*dx
contains

  elemental real(dp) function mc_slope(dl, dr) result(s)
    real(dp), intent(in) :: dl, dr
    if (dl*dr <= 0.0_dp) then
      s = 0.0_dp
    else
      s = sign(min(2.0_dp*abs(dl), 2.0_dp*abs(dr), 0.5_dp*abs(dl + dr)), dl)
    end if
  end function mc_slope

  subroutine tendency(q, w, dqdt)
    real(dp), intent(in) :: q(:), w(:)
    real(dp), intent(out) :: dqdt(:)
    real(dp) :: slope(size(q)), flux(0:size(q))
    integer :: i, n, im, ip
    n = size(q)
    do i = 1, n
      im = i - 1
      if (im < 1) im = n
      ip = i + 1
      if (ip > n) ip = 1
      slope(i) = mc_slope(q(i) - q(im), q(ip) - q(i))
    end do
    ! face i lies between cell i and cell i+1, w(i) is its velocity
    do i = 1, n
      ip = i + 1
      if (ip > n) ip = 1
      if (w(i) >= 0.0_dp) then
        flux(i) = w(i)*(q(i) + 0.5_dp*(1.0_dp - cfl*w(i))*slope(i))
      else
        flux(i) = w(i)*(q(ip) - 0.5_dp*(1.0_dp + cfl*w(i))*slope(ip))
      end if
    end do
    flux(0) = flux(n)
    dqdt = -(flux(1:n) - flux(0:n-1))/dx
  end subroutine tendency

  subroutine rk2_step(q, w)
    real(dp), intent(inout) :: q(:)
    real(dp), intent(in) :: w(:)
    real(dp), dimension(size(q)) :: k1, k2, qs
    call tendency(q, w, k1)
    qs = q + dt*k1
    call tendency(qs, w, k2)
    q = 0.5_dp*(q + qs + dt*k2)
  end subroutine rk2_step

  subroutine transport_run(nt, q, w, qobs, misfit)
    integer, intent(in) :: nt
    real(dp), intent(inout) :: q(:)
    real(dp), intent(in) :: w(:), qobs(:)
    real(dp), intent(out) :: misfit
    integer :: it
    do it = 1, nt
      call rk2_step(q, w)
    end do
    misfit = 0.5_dp*sum((q - qobs)**2)/real(size(q), dp)
  end subroutine transport_run

end module transport_mod
