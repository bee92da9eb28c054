! Shortwave flux through a stack of reflecting levels, swept from the top
! (ilev = nlev) down: each level reflects part of the incoming flux of
! every column, the reflected part heating the level.  The sections
! overwritten are sized with SIZE(albedo(:, ilev)) where ilev is set in the
! routine (before the first sweep and at each iteration), so the room on
! the tape cannot be computed at the routine's or the loop's entry: it was
! once reserved there, reading ilev before it was set.
! adfort: routine=shortwave_levels dep=heat,flux indep=albedo,flux
! adfort: init albedo=0.05:0.4 flux=300:900 nlev=5 ncol=4
! adfort: shape albedo=ncol,nlev flux=ncol heat=nlev
module shortwave_mod
  implicit none
  integer, parameter :: dp = kind(1.0d0)
contains
  subroutine shortwave_levels(nlev, albedo, flux, heat)
    integer, intent(in) :: nlev
    real(dp), intent(in) :: albedo(:, :)
    real(dp), intent(inout) :: flux(:)
    real(dp), intent(out) :: heat(:)
    real(dp) :: refl(size(albedo, 1))
    integer :: ilev, k, ncol

    heat = 0.0_dp
    ! The top level first: its reflection also dims the sky.
    ilev = nlev
    ncol = size(albedo(:, ilev))
    refl(1:ncol) = albedo(:, ilev) * flux(1:ncol)
    flux(1:ncol) = flux(1:ncol) * (1.0_dp - 0.5_dp * refl(1:ncol) / (1.0_dp + refl(1:ncol)))
    heat(ilev) = sum(refl(1:ncol)) / ncol
    do k = 2, nlev
      ilev = nlev - k + 1
      refl(1:size(albedo(:, ilev))) = albedo(:, ilev) * flux(1:size(albedo(:, ilev)))
      flux(1:size(albedo(:, ilev))) = flux(1:size(albedo(:, ilev))) &
        * (1.0_dp - refl(1:size(albedo(:, ilev))) / (1.0_dp + flux(1:size(albedo(:, ilev)))))
      heat(ilev) = heat(ilev) + sum(refl(1:size(albedo(:, ilev)))**2) / (1.0e3_dp * ncol)
    end do
  end subroutine shortwave_levels
end module shortwave_mod
