! Nonlinear shallow-water equations on a doubly periodic f-plane:
!
!   h_t  + (hu)_x + (hv)_y                        = 0
!   (hu)_t + (hu^2 + g h^2/2)_x + (huv)_y          =  f hv - r hu + tau(y, t)
!   (hv)_t + (huv)_x + (hv^2 + g h^2/2)_y          = -f hu - r hv
!
! one Lax-Friedrichs step in flux form per time step, driven by a zonal
! wind stress that oscillates in time; the Coriolis rotation by the
! trapezoidal rule (neutral: forward Euler would amplify inertial
! oscillations by sqrt(1 + (f dt)^2) a step) and the drag implicitly.  The model run accumulates the
! misfit of the layer depth to observations at every step (a 4D-Var cost);
! its gradient is taken with respect to the initial state (h, u, v).
!
! Benchmark of checkpointed time loops (scripts/checkpoint_benchmark.py):
! the time loop of swe_run carries no directive; the script puts one on it
! from the command line (--checkpoint swe_run:it=binomial(snapshots=S)).
module shallow_water_2d
  implicit none
  private
  public :: dp, swe_fluxes, swe_step, swe_run

  integer, parameter :: dp = kind(1.0d0)
  real(dp), parameter :: grav = 9.81_dp        ! m/s^2
  real(dp), parameter :: fcor = 1.0e-4_dp      ! Coriolis parameter, 1/s
  real(dp), parameter :: drag = 1.0e-5_dp      ! linear drag (about 1/day), 1/s
  real(dp), parameter :: tau0 = 1.0e-4_dp      ! wind stress / density, m^2/s^2
  real(dp), parameter :: period = 86400.0_dp   ! wind period, s
  real(dp), parameter :: pi = 3.14159265358979324_dp

contains

  ! Fluxes of (h, hu, hv) in x (f*) and y (g*) at every point.
  subroutine swe_fluxes(nx, ny, h, u, v, fh, fu, fv, gh, gu, gv)
    integer, intent(in) :: nx, ny
    real(dp), intent(in) :: h(nx, ny), u(nx, ny), v(nx, ny)
    real(dp), intent(out) :: fh(nx, ny), fu(nx, ny), fv(nx, ny)
    real(dp), intent(out) :: gh(nx, ny), gu(nx, ny), gv(nx, ny)
    real(dp) :: pres
    integer :: i, j
    do j = 1, ny
      do i = 1, nx
        pres = 0.5_dp*grav*h(i, j)**2
        fh(i, j) = h(i, j)*u(i, j)
        fu(i, j) = h(i, j)*u(i, j)**2 + pres
        fv(i, j) = h(i, j)*u(i, j)*v(i, j)
        gh(i, j) = h(i, j)*v(i, j)
        gu(i, j) = fv(i, j)
        gv(i, j) = h(i, j)*v(i, j)**2 + pres
      end do
    end do
  end subroutine swe_fluxes

  ! One Lax-Friedrichs step of length dt from time `time`: transport and
  ! wind, then the Coriolis rotation and the drag of the new momentum.
  subroutine swe_step(nx, ny, dt, dx, dy, time, h, u, v)
    integer, intent(in) :: nx, ny
    real(dp), intent(in) :: dt, dx, dy, time
    real(dp), intent(inout) :: h(nx, ny), u(nx, ny), v(nx, ny)
    real(dp) :: fh(nx, ny), fu(nx, ny), fv(nx, ny)
    real(dp) :: gh(nx, ny), gu(nx, ny), gv(nx, ny)
    real(dp) :: hnew(nx, ny), unew(nx, ny), vnew(nx, ny)
    real(dp) :: rx, ry, tau, hn, hun, hvn, hus, hvs, alpha, crot, srot, damp
    integer :: i, j, im, ip, jm, jp

    call swe_fluxes(nx, ny, h, u, v, fh, fu, fv, gh, gu, gv)
    rx = 0.5_dp*dt/dx
    ry = 0.5_dp*dt/dy
    ! Coriolis: (hu + i hv) times (1 - i alpha/2)/(1 + i alpha/2), of modulus 1
    alpha = fcor*dt
    crot = (1.0_dp - 0.25_dp*alpha**2)/(1.0_dp + 0.25_dp*alpha**2)
    srot = alpha/(1.0_dp + 0.25_dp*alpha**2)
    damp = 1.0_dp/(1.0_dp + drag*dt)
    do j = 1, ny
      jm = j - 1
      jp = j + 1
      if (jm < 1) jm = ny
      if (jp > ny) jp = 1
      ! zonal wind varying with latitude, its strength oscillating in time
      tau = tau0*cos(2.0_dp*pi*(j - 0.5_dp)/ny)*(1.0_dp + 0.5_dp*sin(2.0_dp*pi*time/period))
      do i = 1, nx
        im = i - 1
        ip = i + 1
        if (im < 1) im = nx
        if (ip > nx) ip = 1
        hn = 0.25_dp*(h(im, j) + h(ip, j) + h(i, jm) + h(i, jp)) &
             - rx*(fh(ip, j) - fh(im, j)) - ry*(gh(i, jp) - gh(i, jm))
        hus = 0.25_dp*(fh(im, j) + fh(ip, j) + fh(i, jm) + fh(i, jp)) &
              - rx*(fu(ip, j) - fu(im, j)) - ry*(gu(i, jp) - gu(i, jm)) + dt*tau
        hvs = 0.25_dp*(gh(im, j) + gh(ip, j) + gh(i, jm) + gh(i, jp)) &
              - rx*(fv(ip, j) - fv(im, j)) - ry*(gv(i, jp) - gv(i, jm))
        hun = damp*(crot*hus + srot*hvs)
        hvn = damp*(crot*hvs - srot*hus)
        hnew(i, j) = hn
        unew(i, j) = hun/hn
        vnew(i, j) = hvn/hn
      end do
    end do
    h = hnew
    u = unew
    v = vnew
  end subroutine swe_step

  ! Run nt steps from the state (h, u, v), which is advanced in place;
  ! cost: half the squared misfit of h to hobs summed over all steps.
  subroutine swe_run(nx, ny, nt, dt, dx, dy, h, u, v, hobs, cost)
    integer, intent(in) :: nx, ny, nt
    real(dp), intent(in) :: dt, dx, dy, hobs(nx, ny)
    real(dp), intent(inout) :: h(nx, ny), u(nx, ny), v(nx, ny)
    real(dp), intent(out) :: cost
    real(dp) :: misfit
    integer :: it, i, j

    cost = 0.0_dp
    do it = 1, nt
      call swe_step(nx, ny, dt, dx, dy, (it - 1)*dt, h, u, v)
      misfit = 0.0_dp
      do j = 1, ny
        do i = 1, nx
          misfit = misfit + (h(i, j) - hobs(i, j))**2
        end do
      end do
      cost = cost + 0.5_dp*misfit/(nx*ny)
    end do
  end subroutine swe_run

end module shallow_water_2d
