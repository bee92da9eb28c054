! Cloud-overlap column integrals in the style of radiation codes: a pointer
! aliases one column of a work array per band (p => work(:, ib)), the
! alias is NULLIFYed when the band is done, and another pointer walks the
! cloud fractions (cf => cfrac) and is NULLIFYed at the end.
! adfort: routine=overlap_column dep=cover indep=cfrac,od
! adfort: init nlay=7 nbnd=3 cfrac=0.05:0.9 od=0.1:2.0
module overlap_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine overlap_column(nlay, nbnd, cfrac, od, cover)
    integer, intent(in) :: nlay, nbnd
    real(wp), intent(in), target :: cfrac(nlay)
    real(wp), intent(in) :: od(nlay, nbnd)
    real(wp), intent(out) :: cover(nbnd)
    real(wp), target :: work(nlay + 1, nbnd)
    real(wp), pointer :: clear(:), cf(:)
    integer :: ib, k
    cf => cfrac
    do ib = 1, nbnd
      clear => work(:, ib)
      clear(1) = 1.0_wp
      do k = 1, nlay
        ! maximum-random overlap of the clear-sky fraction
        clear(k + 1) = clear(k)*(1.0_wp - max(cf(k), cf(max(k - 1, 1))*exp(-od(k, ib))))
      end do
      cover(ib) = 1.0_wp - clear(nlay + 1)
      nullify(clear)
    end do
    nullify(cf)
  end subroutine overlap_column
end module overlap_mod
