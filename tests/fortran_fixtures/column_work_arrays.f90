! Column physics on ncol columns of nlev levels, written the way model
! physics is: a mixing step per column whose work arrays are automatic
! (real ones, one of them 2-D with a zero lower bound, an integer
! permutation and a logical mask), assumed-shape column slices, an
! optional diagnostic output, then a vertical smoother over the whole
! field whose automatic halo array (0:nlev+1, ncol) is larger than a
! column routine's: the generated routines take such arrays as sections
! of one buffer, on the stack when small, allocated when not.
! adfort: routine=physics_step dep=t,cost indep=t,kdiff
! adfort: init nlev=12 ncol=200 dt=0.2 t=-3:3 kdiff=0.5:2.0
module column_work
  implicit none
  integer, parameter :: rp = kind(1.0d0)
contains
  subroutine mix_column(nlev, dt, kdiff, t, heating)
    integer, intent(in) :: nlev
    real(rp), intent(in) :: dt
    real(rp), intent(in) :: kdiff(:)
    real(rp), intent(inout) :: t(:)
    real(rp), intent(out), optional :: heating
    real(rp) :: flux(0:nlev, 2), tnew(nlev), dtk
    integer :: order(nlev)
    logical :: unstable(nlev)
    integer :: k
    do k = 1, nlev
      order(k) = nlev - k + 1
    end do
    flux(0, :) = 0.0_rp
    flux(nlev, :) = 0.0_rp
    do k = 1, nlev - 1
      dtk = t(k+1) - t(k)
      unstable(k) = dtk > 0.0_rp
      if (unstable(k)) then
        ! Convective mixing grows with the instability, and saturates.
        flux(k, 1) = kdiff(k)*dtk*abs(dtk)/(1.0_rp + dtk*dtk)
      else
        flux(k, 1) = 0.1_rp*kdiff(k)*dtk
      end if
      flux(k, 2) = 0.5_rp*flux(k, 1)*exp(-0.01_rp*abs(dtk))
    end do
    do k = 1, nlev
      tnew(order(k)) = t(k) + dt*(flux(k, 1) - flux(k-1, 1) &
                                  + 0.1_rp*(flux(k, 2) - flux(k-1, 2)))
    end do
    if (present(heating)) heating = sum(tnew) - sum(t(1:nlev))
    do k = 1, nlev
      t(k) = tnew(order(k))
    end do
  end subroutine mix_column

  subroutine smooth_field(nlev, ncol, f)
    integer, intent(in) :: nlev, ncol
    real(rp), intent(inout) :: f(nlev, ncol)
    real(rp) :: g(0:nlev+1, ncol)
    integer :: k, j
    do j = 1, ncol
      g(0, j) = f(1, j)
      g(nlev+1, j) = f(nlev, j)
      do k = 1, nlev
        g(k, j) = f(k, j)
      end do
    end do
    do j = 1, ncol
      do k = 1, nlev
        f(k, j) = 0.25_rp*g(k-1, j) + 0.5_rp*g(k, j) + 0.25_rp*g(k+1, j)
      end do
    end do
  end subroutine smooth_field

  subroutine physics_step(nlev, ncol, dt, kdiff, t, cost)
    integer, intent(in) :: nlev, ncol
    real(rp), intent(in) :: dt
    real(rp), intent(in) :: kdiff(nlev, ncol)
    real(rp), intent(inout) :: t(nlev, ncol)
    real(rp), intent(out) :: cost
    real(rp) :: heat, total
    integer :: j
    total = 0.0_rp
    do j = 1, ncol
      call mix_column(nlev, dt, kdiff(:, j), t(:, j), heat)
      total = total + heat**2
    end do
    call smooth_field(nlev, ncol, t)
    cost = 0.5_rp*sum(t**2) + total
  end subroutine physics_step
end module column_work
