! Vertical tracer mixing in the style of MPAS-Ocean and ICON: the model keeps
! its fields in pools and hands them to the physics as POINTER dummy
! arguments; the column loop aliases one column of the tracer field through
! a local pointer (col => tracer(:, i)) and passes it to a column routine
! whose dummy is a pointer as well; the diffusivity column is passed as a
! section of a pointer field to an explicit-shape dummy.
! adfort: routine=ocn_vmix_tracers dep=tracer indep=tracer,kappa
! adfort: init nlev=8 ncol=3 dt=600.0 tracer=5:15 kappa=1.0e-3:1.0e-2 dz=4:12
! adfort: shape tracer=nlev,ncol kappa=nlev,ncol
module ocn_vmix_pointer_fields
  implicit none
  integer, parameter :: rkind = selected_real_kind(12)
  private
  public :: ocn_vmix_tracers, rkind
contains
  subroutine ocn_vmix_tracers(nlev, ncol, dt, dz, kappa, tracer)
    integer, intent(in) :: nlev, ncol
    real(kind=rkind), intent(in) :: dt
    real(kind=rkind), intent(in) :: dz(nlev)
    real(kind=rkind), dimension(:, :), pointer :: kappa, tracer
    real(kind=rkind), dimension(:), pointer :: col
    integer :: iCell
    if (.not. associated(tracer)) return
    do iCell = 1, ncol
      col => tracer(:, iCell)
      call ocn_vmix_column(nlev, dt, dz, kappa(:, iCell), col)
    end do
    nullify(col)
  end subroutine ocn_vmix_tracers

  subroutine ocn_vmix_column(nlev, dt, dz, kap, t)
    integer, intent(in) :: nlev
    real(kind=rkind), intent(in) :: dt, dz(nlev), kap(nlev)
    real(kind=rkind), dimension(:), pointer :: t
    real(kind=rkind) :: flux(nlev + 1)
    integer :: k
    flux(1) = 0.0_rkind
    flux(nlev + 1) = 0.0_rkind
    do k = 2, nlev
      flux(k) = kap(k)*(t(k - 1) - t(k))/(0.5_rkind*(dz(k - 1) + dz(k)))
    end do
    do k = 1, nlev
      t(k) = t(k) + dt*(flux(k) - flux(k + 1))/dz(k)
    end do
  end subroutine ocn_vmix_column
end module ocn_vmix_pointer_fields
