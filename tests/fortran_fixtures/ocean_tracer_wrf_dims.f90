! One tracer step of an ocean model written in the WRF style: memory
! bounds ims:ime, jms:jme passed as dummies declared after the arrays they
! size (a GNU extension the generated code must not copy: -std=f2008 wants
! them typed first), the real kind taken from a kinds module used inside
! the routine, salinity as an assumed-shape array, and the equation of
! state in a private helper of a module whose default is private (r8 there
! comes from the kinds module, which has it from a precision module).  The
! generated module must give the helper's motions to the caller, declare
! r8 wherever tapes and adjoints need it, and compile with -std=f2008.
! adfort: routine=ocean_tracer_step dep=rho,salt,cost indep=temp,salt,kdiff
! adfort: init temp=275:295 salt=33:36 kdiff=0.05:0.2 dt=0.5:0.9
! adfort: init ims=0 ime=5 jms=1 jme=4
! adfort: shape salt=6,4
module ocn_precision_mod
  implicit none
  integer, parameter :: r8 = selected_real_kind(12, 100)
end module ocn_precision_mod

! The model's kinds module re-exports the precision module's kinds.
module ocn_kinds_mod
  use ocn_precision_mod
  implicit none
end module ocn_kinds_mod

module ocean_tracer_mod
  use ocn_kinds_mod
  implicit none
  private
  public :: ocean_tracer_step
  real(r8), parameter :: rho0 = 1025.0_r8
contains
  subroutine ocean_tracer_step(temp, salt, kdiff, rho, ims, ime, jms, jme, dt, cost)
    use ocn_kinds_mod, only: r8
    real(r8), intent(in) :: temp(ims:ime, jms:jme)
    real(r8), intent(inout) :: salt(:, :)
    real(r8), intent(in) :: kdiff
    real(r8), intent(out) :: rho(ims:ime, jms:jme)
    integer, intent(in) :: ims, ime, jms, jme
    real(r8), intent(in) :: dt
    real(r8), intent(out) :: cost
    real(r8) :: flux(ims:ime), column(ims:ime)
    integer :: i, j, ni

    ni = ime - ims + 1
    cost = 0.0_r8
    do j = jms, jme
      ! Zonal diffusion of salt (closed walls), column by column.
      flux(ims) = 0.0_r8
      do i = ims + 1, ime
        flux(i) = kdiff * (salt(i - ims + 1, j - jms + 1) - salt(i - ims, j - jms + 1))
      end do
      do i = ims, ime - 1
        salt(i - ims + 1, j - jms + 1) = salt(i - ims + 1, j - jms + 1) &
          + dt * (flux(i + 1) - flux(i))
      end do
      salt(ni, j - jms + 1) = salt(ni, j - jms + 1) - dt * flux(ime)
      call column_density(temp(:, j), salt(:, j - jms + 1), column)
      rho(:, j) = column
      cost = cost + sum((column - rho0)**2) / ni
    end do
  end subroutine ocean_tracer_step

  ! Linearised equation of state with a thermal-expansion term that grows
  ! with temperature.
  subroutine column_density(t, s, density)
    real(r8), intent(in) :: t(:), s(:)
    real(r8), intent(out) :: density(:)
    integer :: k
    do k = 1, size(t)
      density(k) = rho0 * (1.0_r8 - 1.7e-4_r8 * (t(k) - 283.0_r8) &
        - 5.0e-6_r8 * (t(k) - 283.0_r8)**2 + 7.6e-4_r8 * (s(k) - 35.0_r8))
    end do
  end subroutine column_density
end module ocean_tracer_mod
