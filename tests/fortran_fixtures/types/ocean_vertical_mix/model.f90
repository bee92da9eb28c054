! Vertical mixing of temperature and salinity in an ocean model, on grid
! and state passed as derived types (the MOM/NEMO way): integer bounds and
! layer thicknesses in the grid, tracers in the state.
module ocean_kinds
  implicit none
  integer, parameter :: wp = selected_real_kind(12, 300)
end module ocean_kinds

module ocean_types
  use ocean_kinds, only: wp
  implicit none
  type :: ocean_grid
    integer :: kts, kte                ! vertical index range
    integer :: ni                      ! columns
    real(wp), allocatable :: dz(:)     ! layer thickness (m)
    real(wp) :: area                   ! cell area (m2)
    logical :: rigid_lid
  end type ocean_grid
  type :: ocean_state
    real(wp), allocatable :: t(:,:)    ! potential temperature (degC), (ni, nz)
    real(wp), allocatable :: s(:,:)    ! salinity (psu)
    real(wp) :: sst_mean               ! diagnosed
    integer :: nstep                   ! step counter (passive)
  end type ocean_state
end module ocean_types

module ocean_vmix
  use ocean_kinds, only: wp
  use ocean_types
  implicit none
  real(wp), parameter :: rho_cp = 4.1e6_wp
contains
  subroutine vertical_mix(grid, state, kappa, dt, heat)
    type(ocean_grid), intent(in) :: grid
    type(ocean_state), intent(inout) :: state
    real(wp), intent(in) :: kappa, dt
    real(wp), intent(out) :: heat
    real(wp), parameter :: alpha = 2.0e-4_wp, beta = 7.6e-4_wp
    real(wp) :: flux_t(grid%ni), flux_s(grid%ni)
    real(wp) :: drho, kz, dzc
    integer :: i, k

    do k = grid%kts, grid%kte - 1
      dzc = 0.5_wp * (grid%dz(k) + grid%dz(k + 1))
      do i = 1, grid%ni
        ! Diffusivity enhanced where the column is statically unstable.
        drho = alpha * (state%t(i, k + 1) - state%t(i, k)) &
             - beta * (state%s(i, k + 1) - state%s(i, k))
        kz = kappa * (1.0_wp + 10.0_wp * tanh(max(drho, 0.0_wp) * 1.0e3_wp))
        flux_t(i) = kz * (state%t(i, k) - state%t(i, k + 1)) / dzc
        flux_s(i) = kz * (state%s(i, k) - state%s(i, k + 1)) / dzc
      end do
      state%t(:, k) = state%t(:, k) - dt * flux_t / grid%dz(k)
      state%t(:, k + 1) = state%t(:, k + 1) + dt * flux_t / grid%dz(k + 1)
      state%s(:, k) = state%s(:, k) - dt * flux_s / grid%dz(k)
      state%s(:, k + 1) = state%s(:, k + 1) + dt * flux_s / grid%dz(k + 1)
    end do
    state%sst_mean = sum(state%t(:, grid%kts)) / grid%ni
    state%nstep = state%nstep + 1
    heat = 0.0_wp
    do k = grid%kts, grid%kte
      heat = heat + rho_cp * grid%area * grid%dz(k) * sum(state%t(:, k))
    end do
  end subroutine vertical_mix
end module ocean_vmix
