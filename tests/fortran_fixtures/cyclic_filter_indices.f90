! A cyclic three-point filter along a latitude circle, with a drifting
! weight counter: the neighbour indices im/ip of each point are computed
! afresh in every iteration (wrapped around at the ends), so the reverse
! sweep computes them again instead of taping them; the counter kw is
! carried from one iteration to the next and is taped.
! adfort: routine=cyclic_filter dep=y indep=x,w
! adfort: init n=24 x=-1:1 w=0.2:0.8
! adfort: bench n=400000
module cyclic_filter_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine cyclic_filter(n, x, w, y)
    integer, intent(in) :: n
    real(wp), intent(in) :: x(n), w(3)
    real(wp), intent(out) :: y(n)
    integer :: i, im, ip, kw
    kw = 0
    do i = 1, n
      im = i - 1
      ip = i + 1
      if (im < 1) im = im + n
      if (ip > n) then
        ip = ip - n
      end if
      kw = kw + 1
      if (kw > 3) kw = 1
      y(i) = w(kw)*x(im)*x(ip) + (1.0_wp - w(kw))*x(i)**2
    end do
  end subroutine cyclic_filter
end module cyclic_filter_mod
