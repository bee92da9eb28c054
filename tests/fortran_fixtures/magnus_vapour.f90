! Magnus formula (WMO coefficients): saturation vapour pressure, dew point
! from relative humidity, and specific humidity.
! adfort: routine=magnus dep=es,td,q indep=t,rh,p
! adfort: init t=-10:35 rh=0.2:0.95 p=80000:103000
module humidity_mod
  implicit none
contains
  subroutine magnus(t, rh, p, es, td, q)
    real(kind=8), intent(in) :: t        ! temperature [degC]
    real(kind=8), intent(in) :: rh, p    ! relative humidity [1], pressure [Pa]
    real(kind=8), intent(out) :: es, td, q
    real(kind=8), parameter :: a = 611.2d0, b = 17.62d0, c = 243.12d0
    real(kind=8), parameter :: eps = 0.622d0
    real(kind=8) :: gam, e
    es = a*exp(b*t/(c + t))
    e = rh*es
    gam = log(rh) + b*t/(c + t)
    td = c*gam/(b - gam)
    q = eps*e/(p - (1.0d0 - eps)*e)
  end subroutine magnus
end module humidity_mod
