! adfort demo: gradient of the seawater density by the generated adjoint
! (density_rev from seawater_mod_ad) next to central finite differences.
!
!   adfort diff examples/seawater.f90 --dep rho --indep temp,salt -o seawater_ad.f90
!   gfortran -O2 examples/seawater.f90 seawater_ad.f90 examples/demo_driver.f90
program demo_driver
  use seawater_mod, only: wp, density
  use seawater_mod_ad, only: density_rev
  implicit none
  real(wp), parameter :: temp = 10.0_wp, salt = 35.0_wp, p = 1000.0_wp
  ! rho ~ 1000 varies by ~0.2 per degree: a step of 1e-4 relative keeps
  ! both rounding (eps*rho/h) and truncation (h**2) near 1e-10.
  real(wp), parameter :: rel_step = 1.0e-4_wp, tol = 1.0e-6_wp
  real(wp) :: t, s, rho, rho_check
  real(wp) :: temp_adj, salt_adj, rho_adj
  real(wp) :: fd_temp, fd_salt, err_temp, err_salt

  ! Sanity: the published check value of EOS-80.
  call density(25.0_wp, 35.0_wp, 10000.0_wp, rho_check)

  ! Reverse mode: seed rho_adj = 1; temp_adj, salt_adj are incremented.
  t = temp
  s = salt
  temp_adj = 0.0_wp
  salt_adj = 0.0_wp
  rho_adj = 1.0_wp
  call density_rev(t, temp_adj, s, salt_adj, p, rho, rho_adj)

  fd_temp = central_difference(1)
  fd_salt = central_difference(2)
  err_temp = abs(temp_adj - fd_temp)/max(abs(temp_adj), abs(fd_temp), tiny(1.0_wp))
  err_salt = abs(salt_adj - fd_salt)/max(abs(salt_adj), abs(fd_salt), tiny(1.0_wp))

  write(*, '(a)') 'adfort demo: UNESCO EOS-80 seawater density rho(temp, salt, p)'
  write(*, '(a, f8.3, a, f8.3, a, f8.1, a)') '  temp =', temp, ' degC   salt =', &
      salt, ' psu   p =', p, ' dbar'
  write(*, '(a, f12.5, a)') '  rho  =', rho, ' kg/m3'
  write(*, '(a, f12.5, a)') '  check value rho(25, 35, 10000) =', rho_check, &
      ' kg/m3 (published 1062.53817)'
  write(*, *)
  write(*, '(a)') '  derivative            adjoint (adfort)      central difference  rel. error'
  write(*, '(a)') '  --------------  ----------------------  ----------------------  ----------'
  write(*, '(2x, a14, 2es24.14, es12.2)') 'd rho / d temp', temp_adj, fd_temp, err_temp
  write(*, '(2x, a14, 2es24.14, es12.2)') 'd rho / d salt', salt_adj, fd_salt, err_salt

  if (max(err_temp, err_salt) > tol .or. abs(rho_check - 1062.53817_wp) > 1.0e-4_wp) then
    write(*, '(a)') 'FAILED: adjoint and finite differences disagree'
    stop 1
  end if
  write(*, '(a)') 'OK: adjoint gradient agrees with finite differences'

contains

  ! Central difference of rho along input i (1 = temp, 2 = salt).
  function central_difference(i) result(deriv)
    integer, intent(in) :: i
    real(wp) :: deriv, h, x0, rho_plus, rho_minus
    x0 = merge(temp, salt, i == 1)
    h = rel_step*max(abs(x0), 1.0_wp)
    if (i == 1) then
      call density(temp + h, salt, p, rho_plus)
      call density(temp - h, salt, p, rho_minus)
    else
      call density(temp, salt + h, p, rho_plus)
      call density(temp, salt - h, p, rho_minus)
    end if
    deriv = (rho_plus - rho_minus)/(2.0_wp*h)
  end function central_difference

end program demo_driver
