! Convective available potential energy of several columns: a parcel
! lifted from the surface, its buoyancy integrated upwards from the level
! of free convection until it turns negative.  Named DO constructs with
! CYCLE columns (no free convection in a column) and EXIT levels.
! adfort: routine=parcel_cape dep=cape indep=tv,tparcel
! adfort: init ncol=3 nlev=12 tv=280:290 tparcel=281:292 dz=250
! adfort: bench ncol=400 nlev=200
subroutine parcel_cape(ncol, nlev, dz, tv, tparcel, cape)
  implicit none
  integer, intent(in) :: ncol, nlev
  real(8), intent(in) :: dz, tv(nlev, ncol), tparcel(nlev, ncol)
  real(8), intent(out) :: cape(ncol)
  real(8), parameter :: g = 9.80665d0
  real(8) :: buoy
  integer :: i, k, klfc

  columns: do i = 1, ncol
    cape(i) = 0.0d0
    klfc = 0
    search: do k = 1, nlev
      if (tparcel(k, i) > tv(k, i)) then
        klfc = k
        exit search
      end if
    end do search
    if (klfc == 0) cycle columns
    levels: do k = klfc, nlev
      buoy = g*(tparcel(k, i) - tv(k, i))/tv(k, i)
      if (buoy < 0.0d0) exit levels
      cape(i) = cape(i) + buoy*dz
    end do levels
  end do columns
end subroutine parcel_cape
