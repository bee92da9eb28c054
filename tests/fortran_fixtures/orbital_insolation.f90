! Daily mean top-of-atmosphere insolation (Berger 1978 style): solar
! declination from obliquity and true longitude, sunset hour angle, and
! the Earth-Sun distance factor from eccentricity.  Angles in degrees.
! adfort: routine=daily_insolation dep=q_day,h0 indep=lat,lambda,ecc,obliq
! adfort: init lat=20:50 lambda=400:600 ecc=0.005:0.05 obliq=22:24.5 perihelion=283
module orbit_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: pi = 3.14159265358979324_wp
  real(wp), parameter :: deg2rad = pi/180.0_wp
contains
  subroutine daily_insolation(lat, lambda, ecc, obliq, perihelion, q_day, h0)
    real(wp), intent(in) :: lat, lambda, ecc, obliq, perihelion
    real(wp), intent(out) :: q_day, h0
    real(wp), parameter :: s0 = 1361.0_wp
    real(wp) :: phi, lam, delta, dist_factor
    phi = lat*deg2rad
    ! true longitude wrapped into [0, 360) degrees
    lam = mod(lambda, 360.0_wp)*deg2rad
    delta = asin(sin(obliq*deg2rad)*sin(lam))
    h0 = acos(-tan(phi)*tan(delta))
    dist_factor = (1.0_wp + ecc*cos(lam - perihelion*deg2rad))**2/(1.0_wp - ecc**2)**2
    q_day = s0/pi*dist_factor*(h0*sin(phi)*sin(delta) + cos(phi)*cos(delta)*sin(h0))
  end subroutine daily_insolation
end module orbit_mod
