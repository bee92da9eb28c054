! Outgoing long-wave flux of ncol atmospheric columns whose temperatures
! arrive as one flat slice of a packed physics buffer: the slice is
! RESHAPEd to (nlev, ncol), weighted by layer emissivities and summed
! over levels, each layer also exchanging with the one below.  RESHAPE
! of an array section once slipped past the fence and gave a silent zero
! adjoint.
! adfort: routine=column_olr dep=olr,total indep=buf,emis
! adfort: init buf=200:300 emis=0.1:0.9 nlev=5 ncol=3 offset=2
module column_olr_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: sigma = 5.670374419e-8_wp
contains
  subroutine column_olr(nlev, ncol, offset, buf, emis, olr, total)
    integer, intent(in) :: nlev, ncol, offset
    real(wp), intent(in) :: buf(nlev*ncol + offset), emis(nlev)
    real(wp), intent(out) :: olr(ncol), total
    real(wp) :: t(nlev, ncol), trans(nlev, ncol)
    integer :: k

    t = reshape(buf(offset + 1:offset + nlev*ncol), (/nlev, ncol/))
    do k = 1, nlev
      trans(k, :) = emis(k)*sigma*t(k, :)**4
    end do
    trans(1:nlev - 1, :) = trans(1:nlev - 1, :) + 0.1_wp*trans(2:nlev, :)
    olr = sum(trans, dim=1)
    total = sum(olr)/ncol
  end subroutine column_olr
end module column_olr_mod
