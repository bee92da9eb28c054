! A 1-2-1 smoother called on the active temperature field and on passive
! fields (the observations, an intent(in) argument, and a section of a
! work array): its input dummy is active at one call site only, so the
! passive arrays get zeroed adjoint scratch arrays of their shape.  A scalar
! function's value is broadcast into a whole array.
module smoothing
  implicit none
  integer, parameter :: wp = selected_real_kind(12)
contains
  subroutine smooth(n, fin, fout)
    integer, intent(in) :: n
    real(wp), intent(in) :: fin(n)
    real(wp), intent(out) :: fout(n)
    integer :: i
    fout(1) = fin(1)
    fout(n) = fin(n)
    do i = 2, n - 1
      fout(i) = 0.25_wp*fin(i-1) + 0.5_wp*fin(i) + 0.25_wp*fin(i+1)
    end do
  end subroutine smooth

  real(wp) function background(tmean, lapse)
    real(wp), intent(in) :: tmean, lapse
    background = tmean - 0.5_wp*lapse + 0.01_wp*tmean**2
  end function background

  subroutine analysis(n, m, temp, obs, cost)
    integer, intent(in) :: n, m
    real(wp), intent(in) :: temp(n)
    real(wp), intent(in) :: obs(n)
    real(wp), intent(out) :: cost
    real(wp) :: ts(n), os(n), bg(n), grid(m, n), gs(n), tmean
    integer :: k
    do k = 1, n
      grid(:, k) = real(k, wp)
    end do
    call smooth(n, temp, ts)
    call smooth(n, obs, os)
    call smooth(n, grid(2, :), gs)
    tmean = sum(ts)/n
    bg = background(tmean, 6.5_wp)
    cost = 0.0_wp
    do k = 1, n
      cost = cost + (ts(k) - os(k))**2 + 0.1_wp*(ts(k) - bg(k))**2 + 1.0e-3_wp*gs(k)*ts(k)
    end do
  end subroutine analysis
end module smoothing
