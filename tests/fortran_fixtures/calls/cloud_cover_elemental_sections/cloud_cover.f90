! Diagnostic cloud cover of a column (Sundqvist-type scheme): an elemental
! function applied to array sections whose arguments mix sections and a
! column mean (a reduction of a whole array).
module cloud_cover
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  elemental function sundqvist(rh, rhc) result(cf)
    real(wp), intent(in) :: rh, rhc
    real(wp) :: cf
    cf = 1.0_wp - sqrt(max(1.0e-6_wp, 1.0_wp - min(rh, 0.999_wp))/(1.0_wp - rhc))
    cf = max(0.0_wp, cf)
  end function sundqvist

  subroutine cloud_column(n, rh, q, rhc, cover)
    integer, intent(in) :: n
    real(wp), intent(in) :: rh(n), q(n)
    real(wp), intent(in) :: rhc
    real(wp), intent(out) :: cover
    real(wp) :: cf(n)
    cf(1) = 0.0_wp
    ! interface humidity; the critical value rises with the layer's water,
    ! or with the column mean where the layer is dry
    cf(2:n) = sundqvist(0.5_wp*(rh(2:n) + rh(1:n - 1)), &
                        rhc + 20.0_wp*merge(q(2:n), sum(q)/n, rh(2:n) > 0.8_wp))
    cover = sum(cf*q)/sum(q)
  end subroutine cloud_column
end module cloud_cover
