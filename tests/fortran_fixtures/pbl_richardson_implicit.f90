! Boundary-layer vertical mixing of u, v, theta in many columns: the eddy
! diffusivity at each interface is a mixing length squared times the wind
! shear times a stability function of the gradient Richardson number
! (stable: 1/(1+5 Ri)**2, unstable: sqrt(1 - 16 Ri)), then one implicit
! (backward Euler) diffusion step for each field, solved by a separate
! tridiagonal subroutine.  Surface drag on the lowest level.  Time loop
! -> column loop -> column routine -> tridiag.  Cost: sum of squared
! departures of theta from a reference plus kinetic energy at the end.
! adfort: routine=pbl_run dep=cost indep=th,u,v,z0
! adfort: init nlev=8 ncol=3 nt=3 dt=60 th=290:300 u=2:10 v=-3:3 z0=0.01:0.1 thref=290:300
! adfort: bench nlev=60 ncol=200 nt=20
module pbl_ri
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: grav = 9.81_wp, vk = 0.4_wp, dz = 50.0_wp
  real(wp), parameter :: lmix = 30.0_wp, kmin = 0.1_wp
contains
  subroutine tridiag(n, a, b, c, d, x)
    integer, intent(in) :: n
    real(wp), intent(in) :: a(n), b(n), c(n), d(n)
    real(wp), intent(out) :: x(n)
    real(wp) :: cp(n), dp(n), m
    integer :: k
    cp(1) = c(1)/b(1)
    dp(1) = d(1)/b(1)
    do k = 2, n
      m = b(k) - a(k)*cp(k-1)
      cp(k) = c(k)/m
      dp(k) = (d(k) - a(k)*dp(k-1))/m
    end do
    x(n) = dp(n)
    do k = n - 1, 1, -1
      x(k) = dp(k) - cp(k)*x(k+1)
    end do
  end subroutine tridiag

  subroutine column_mix(nlev, dt, z0, th, u, v)
    integer, intent(in) :: nlev
    real(wp), intent(in) :: dt, z0
    real(wp), intent(inout) :: th(nlev), u(nlev), v(nlev)
    real(wp) :: kh(0:nlev), a(nlev), b(nlev), c(nlev), rhs(nlev)
    real(wp) :: shear2, n2, ri, fstab, cdrag, wspd
    integer :: k
    kh(0) = 0.0_wp
    kh(nlev) = 0.0_wp
    do k = 1, nlev - 1
      shear2 = ((u(k+1) - u(k))**2 + (v(k+1) - v(k))**2)/dz**2 + 1.0e-6_wp
      n2 = grav/(0.5_wp*(th(k) + th(k+1)))*(th(k+1) - th(k))/dz
      ri = n2/shear2
      if (ri > 0.0_wp) then
        fstab = 1.0_wp/(1.0_wp + 5.0_wp*ri)**2
      else
        fstab = sqrt(1.0_wp - 16.0_wp*ri)
      end if
      kh(k) = max(kmin, lmix**2*sqrt(shear2)*fstab)
    end do
    do k = 1, nlev
      a(k) = -dt*kh(k-1)/dz**2
      c(k) = -dt*kh(k)/dz**2
      b(k) = 1.0_wp - a(k) - c(k)
    end do
    ! theta: no flux at either end
    rhs = th
    call tridiag(nlev, a, b, c, rhs, th)
    ! momentum: quadratic drag at the surface, implicit in the drag
    wspd = sqrt(u(1)**2 + v(1)**2)
    cdrag = (vk/log(0.5_wp*dz/z0))**2
    b(1) = b(1) + dt*cdrag*wspd/dz
    rhs = u
    call tridiag(nlev, a, b, c, rhs, u)
    rhs = v
    call tridiag(nlev, a, b, c, rhs, v)
  end subroutine column_mix

  subroutine pbl_run(nlev, ncol, nt, dt, z0, th, u, v, thref, cost)
    integer, intent(in) :: nlev, ncol, nt
    real(wp), intent(in) :: dt, z0(ncol), thref(nlev, ncol)
    real(wp), intent(inout) :: th(nlev, ncol), u(nlev, ncol), v(nlev, ncol)
    real(wp), intent(out) :: cost
    integer :: it, ic
    do it = 1, nt
      do ic = 1, ncol
        call column_mix(nlev, dt, z0(ic), th(:, ic), u(:, ic), v(:, ic))
      end do
    end do
    cost = sum((th - thref)**2) + 0.5_wp*sum(u**2 + v**2)
  end subroutine pbl_run
end module pbl_ri
