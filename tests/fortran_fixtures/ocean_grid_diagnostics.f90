! Diagnostics of a gridded ocean state held as a flat control vector (as
! in variational data assimilation): RESHAPE onto the grid, wet points
! PACKed, relaxed towards their masked mean and UNPACKed back, a centred
! zonal gradient with EOSHIFT (no flow through the side walls), zonal
! means and maxima along a dimension, wind speed as NORM2 of its
! components, and a masked misfit.  Every transformational intrinsic must
! pass the adjoint back (a missing rule once gave a silent zero).
! adfort: routine=ocean_diagnostics dep=cost,zonal indep=state,wind
! adfort: init state=0.5:1.5 wind=0.1:0.4 nx=6 ny=4 sst_min=0.8
module ocean_diag_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine ocean_diagnostics(nx, ny, state, wind, sst_min, cost, zonal)
    integer, intent(in) :: nx, ny
    real(wp), intent(in) :: state(nx*ny), wind(2, ny), sst_min
    real(wp), intent(out) :: cost, zonal(ny)
    real(wp) :: sst(nx, ny), grad(nx, ny), speed(ny), wet_sst(nx*ny)
    real(wp) :: mean_wet
    logical :: wet(nx, ny)

    sst = reshape(state(1:nx*ny), [nx, ny])
    wet = sst > sst_min
    ! Relax the wet points towards their mean; land keeps its value.
    wet_sst = pack(sst, wet, spread(0.0_wp, 1, nx*ny))
    mean_wet = sum(sst, mask=wet)/max(count(wet), 1)
    sst = unpack(0.8_wp*wet_sst + 0.2_wp*mean_wet, wet, sst)
    grad = 0.5_wp*(eoshift(sst, 1, dim=1) - eoshift(sst, -1, dim=1))
    speed = norm2(wind, dim=1)
    zonal = sum(sst, dim=1)/nx + maxval(grad, dim=1)*speed
    cost = sum(grad**2, mask=wet) + norm2(sst)*minval(speed) &
         + sum(matmul(transpose(sst), sst))/(nx*ny)
  end subroutine ocean_diagnostics
end module ocean_diag_mod
