! Growth of thin sea ice at the edge of the pack: the freezing rate is an
! elemental function of temperature and salinity, applied to whole arrays
! inside a WHERE, partly taken from the neighbouring cell (CSHIFT of the
! function's array value).  Regression: the CSHIFT was stored in a scalar
! (fuzz L3 seed 200046: the generated code did not compile).
! adfort: routine=ice_edge dep=hice indep=hice,t,s
! adfort: init n=12 hice=0.1:0.9 t=-3:2 s=30:35
module ice_edge_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  elemental real(wp) function freeze_rate(t, s)
    real(wp), intent(in) :: t, s
    freeze_rate = 0.01_wp*tanh(-(t + 0.054_wp*s))*(1.0_wp + 0.001_wp*s**2)
  end function freeze_rate

  subroutine ice_edge(n, t, s, hice)
    integer, intent(in) :: n
    real(wp), intent(in) :: t(n), s(n)
    real(wp), intent(inout) :: hice(n)
    where (hice < 1.0_wp)
      hice = hice + 0.5_wp*cshift(freeze_rate(t, s), 1) + 0.5_wp*freeze_rate(t, s)*hice
    end where
  end subroutine ice_edge
end module ice_edge_mod
