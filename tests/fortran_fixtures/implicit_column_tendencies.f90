! A column model stepped semi-implicitly: implicit vertical diffusion by a
! Thomas solver, an explicit heating that only adds to the temperature, an
! upward recursive smoothing of the humidity and a downward shift of a
! tracer.  Written to exercise what the adjoint may leave off the tape:
! - the solver's forward sweep writes each cp(k), dp(k) once and reads
!   only the element the iteration before wrote (no old values needed);
! - the smoothing reads the element it overwrites (old values needed);
! - the downward shift reads the element the next iteration overwrites
!   (old values needed);
! - the heating's own reversal does not put t back (its adjoint reads no
!   temperature), so the time loop must keep t itself, while the diffusion
!   step puts back every t it overwrites;
! - tmax(k) is written once per level in a loop inside the time loop and
!   read after that loop: the next step's loop overwrites values the
!   reversal of this step reads;
! - the gradient g is computed again in the reversed level loop from w,
!   which the loop after it changes (the adjoint of that loop reads no w):
!   w must still be put back before the level loop is reversed.
! adfort: routine=column_run dep=cost indep=t,q,kdiff
! adfort: init nlev=9 nt=4 dt=600 t=250:300 q=0.002:0.012 kdiff=0.5:2 heat=0.001:0.003 tobs=250:300
! adfort: bench nlev=2000 nt=200
module implicit_column
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine thomas(n, a, b, c, d, x)
    integer, intent(in) :: n
    real(wp), intent(in) :: a(n), b(n), c(n), d(n)
    real(wp), intent(out) :: x(n)
    real(wp) :: cp(n), dp(n), den
    integer :: k
    cp(1) = c(1)/b(1)
    dp(1) = d(1)/b(1)
    do k = 2, n
      den = b(k) - a(k)*cp(k-1)
      cp(k) = c(k)/den
      dp(k) = (d(k) - a(k)*dp(k-1))/den
    end do
    x(n) = dp(n)
    do k = n - 1, 1, -1
      x(k) = dp(k) - cp(k)*x(k+1)
    end do
  end subroutine thomas

  subroutine diffuse(n, dt, kdiff, t)
    integer, intent(in) :: n
    real(wp), intent(in) :: dt, kdiff
    real(wp), intent(inout) :: t(n)
    real(wp) :: a(n), b(n), c(n), rhs(n), kz
    integer :: k
    do k = 1, n
      ! diffusivity grows with the local temperature
      kz = kdiff*(1.0_wp + 1.0e-3_wp*(t(k) - 270.0_wp)**2)*dt*1.0e-4_wp
      a(k) = -kz
      c(k) = -kz
      if (k == 1) a(k) = 0.0_wp
      if (k == n) c(k) = 0.0_wp
      b(k) = 1.0_wp - a(k) - c(k)
      rhs(k) = t(k)
    end do
    call thomas(n, a, b, c, rhs, t)
  end subroutine diffuse

  subroutine add_heating(n, heat, t)
    integer, intent(in) :: n
    real(wp), intent(in) :: heat(n)
    real(wp), intent(inout) :: t(n)
    integer :: k
    do k = 1, n
      t(k) = t(k) + heat(k)*600.0_wp
    end do
  end subroutine add_heating

  subroutine smooth_upward(n, w, q)
    integer, intent(in) :: n
    real(wp), intent(in) :: w
    real(wp), intent(inout) :: q(n)
    integer :: k
    do k = 2, n
      q(k) = q(k)*(1.0_wp - w) + w*q(k-1)**2/(q(k) + q(k-1))
    end do
  end subroutine smooth_upward

  subroutine shift_down(n, t, q)
    integer, intent(in) :: n
    real(wp), intent(in) :: t(n)
    real(wp), intent(inout) :: q(n)
    integer :: k
    do k = 1, n - 1
      q(k) = 0.5_wp*q(k+1)*t(k)/270.0_wp + 0.5_wp*q(k)
    end do
  end subroutine shift_down

  subroutine column_run(nlev, nt, dt, kdiff, heat, t, q, tobs, cost)
    integer, intent(in) :: nlev, nt
    real(wp), intent(in) :: dt, kdiff, heat(nlev), tobs(nlev)
    real(wp), intent(inout) :: t(nlev), q(nlev)
    real(wp), intent(out) :: cost
    real(wp) :: tmax(nlev), drift(nlev), w(nlev), g
    integer :: it, k
    cost = 0.0_wp
    drift = 0.0_wp
    w = t
    do it = 1, nt
      call diffuse(nlev, dt, kdiff, t)
      call add_heating(nlev, heat, t)
      call smooth_upward(nlev, 0.3_wp, q)
      call shift_down(nlev, t, q)
      ! humidity drift from the gradient of a lagged temperature w, which
      ! is relaxed towards t only after
      do k = 1, nlev - 1
        g = w(k) - w(k+1)
        drift(k) = drift(k) + 1.0e-3_wp*g**2
      end do
      do k = 1, nlev
        w(k) = 0.5_wp*w(k) + 0.5_wp*t(k)
      end do
      do k = 1, nlev - 1
        q(k) = 0.99_wp*q(k) + 1.0e-4_wp*drift(k)
      end do
      do k = 1, nlev
        tmax(k) = max(t(k), tobs(k))*(1.0_wp + q(k))
      end do
      do k = 1, nlev
        cost = cost + (tmax(k) - tobs(k))**2*t(k)/300.0_wp
      end do
    end do
  end subroutine column_run
end module implicit_column
