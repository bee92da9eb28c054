! The variables of vertical_mix as flat vectors for the check driver:
! x = (state%t, state%s, state%sst_mean, kappa), y = (state%t, state%s,
! state%sst_mean, heat).
module glue
  use ocean_kinds, only: wp
  use ocean_types
  use ocean_vmix, only: vertical_mix
  use ocean_vmix_ad, only: vertical_mix_rev
  use ocean_types_ad, only: ocean_state_adj
  implicit none
  integer, parameter :: ni = 3, nz = 6, nt = ni * nz
  real(wp), parameter :: dt = 600.0_wp
contains
  subroutine glue_sizes(nx, ny)
    integer, intent(out) :: nx, ny
    nx = 2 * nt + 2
    ny = 2 * nt + 2
  end subroutine glue_sizes

  subroutine make_grid(grid)
    type(ocean_grid), intent(out) :: grid
    integer :: k
    grid%kts = 1
    grid%kte = nz
    grid%ni = ni
    allocate(grid%dz(nz))
    do k = 1, nz
      grid%dz(k) = 5.0_wp * 1.4_wp**(k - 1)
    end do
    grid%area = 1.0e8_wp
    grid%rigid_lid = .true.
  end subroutine make_grid

  subroutine make_state(x, state, kappa)
    real(wp), intent(in) :: x(:)
    type(ocean_state), intent(out) :: state
    real(wp), intent(out) :: kappa
    allocate(state%t(ni, nz), state%s(ni, nz))
    state%t = reshape(x(1:nt), [ni, nz])
    state%s = reshape(x(nt + 1:2 * nt), [ni, nz])
    state%sst_mean = x(2 * nt + 1)
    state%nstep = 7
    kappa = x(2 * nt + 2)
  end subroutine make_state

  subroutine glue_base(x)
    real(wp), intent(out) :: x(:)
    integer :: i, k
    do k = 1, nz
      do i = 1, ni
        ! Warm fresh water over cold salty water, with an unstable layer.
        x(i + (k - 1) * ni) = 20.0_wp - 2.5_wp * k + 0.3_wp * i
        x(nt + i + (k - 1) * ni) = 34.0_wp + 0.15_wp * k - 0.05_wp * i
      end do
    end do
    x(2 + 2 * ni) = x(2 + 1 * ni) + 0.7_wp  ! t(2, 3) warmer than above it
    x(2 * nt + 1) = 15.0_wp
    x(2 * nt + 2) = 1.0e-4_wp
  end subroutine glue_base

  subroutine pack_outputs(state, heat, y)
    type(ocean_state), intent(in) :: state
    real(wp), intent(in) :: heat
    real(wp), intent(out) :: y(:)
    y(1:nt) = reshape(state%t, [nt])
    y(nt + 1:2 * nt) = reshape(state%s, [nt])
    y(2 * nt + 1) = state%sst_mean
    y(2 * nt + 2) = heat * 1.0e-15_wp  ! joules: scaled like the others
  end subroutine pack_outputs

  subroutine glue_eval(x, y)
    real(wp), intent(in) :: x(:)
    real(wp), intent(out) :: y(:)
    type(ocean_grid) :: grid
    type(ocean_state) :: state
    real(wp) :: kappa, heat
    call make_grid(grid)
    call make_state(x, state, kappa)
    call vertical_mix(grid, state, kappa, dt, heat)
    call pack_outputs(state, heat, y)
  end subroutine glue_eval

  subroutine glue_rev(x, xpre, ybar, xbar, y)
    real(wp), intent(in) :: x(:), xpre(:), ybar(:)
    real(wp), intent(out) :: xbar(:), y(:)
    type(ocean_grid) :: grid
    type(ocean_state) :: state
    type(ocean_state_adj) :: state_adj
    real(wp) :: kappa, kappa_adj, heat, heat_adj
    call make_grid(grid)
    call make_state(x, state, kappa)
    allocate(state_adj%t(ni, nz), state_adj%s(ni, nz))
    ! state is dependent and independent: its seed in, its gradient out.
    state_adj%t = reshape(ybar(1:nt), [ni, nz])
    state_adj%s = reshape(ybar(nt + 1:2 * nt), [ni, nz])
    state_adj%sst_mean = ybar(2 * nt + 1)
    heat_adj = ybar(2 * nt + 2) * 1.0e-15_wp
    kappa_adj = xpre(2 * nt + 2)
    call vertical_mix_rev(grid, state, state_adj, kappa, kappa_adj, dt, heat, heat_adj)
    xbar(1:nt) = reshape(state_adj%t, [nt])
    xbar(nt + 1:2 * nt) = reshape(state_adj%s, [nt])
    xbar(2 * nt + 1) = state_adj%sst_mean
    xbar(2 * nt + 2) = kappa_adj - xpre(2 * nt + 2)
    call pack_outputs(state, heat, y)
  end subroutine glue_rev
end module glue
