!> Wright (1997) equation of state in the style of MOM6: module and routine
!! names in mixed case, a reference-pressure module variable differentiated
!! (named with other capitals on the command line), a column routine calling
!! the point routine.
module MOM_EOS_Wright
  implicit none
  integer, parameter :: kind_rho = selected_real_kind(12)
  real(kind_rho) :: P_Ref = 1.0e5_kind_rho     !< reference pressure [Pa]
  real(kind_rho), parameter :: a0 = 7.057924e-4_kind_rho, a1 = 3.480336e-7_kind_rho, &
       a2 = -1.112733e-7_kind_rho
  real(kind_rho), parameter :: b0 = 5.790749e8_kind_rho, b1 = 3.516535e6_kind_rho, &
       b2 = -4.002714e4_kind_rho, b3 = 2.084372e2_kind_rho, b4 = 5.944068e5_kind_rho, &
       b5 = -9.643486e3_kind_rho
  real(kind_rho), parameter :: c0 = 1.704853e5_kind_rho, c1 = 7.904722e2_kind_rho, &
       c2 = -7.984422_kind_rho, c3 = 5.140652e-2_kind_rho, c4 = -2.302158e2_kind_rho, &
       c5 = -3.079464_kind_rho
contains
  subroutine Calculate_Density_Scalar_Wright(T, S, Pressure, Rho)
    real(kind_rho), intent(in) :: T, S, Pressure
    real(kind_rho), intent(out) :: Rho
    real(kind_rho) :: al0, p0, lambda
    al0 = a0 + a1*T + a2*S
    p0 = b0 + b4*S + T*(b1 + T*(b2 + b3*T) + b5*S)
    lambda = c0 + c4*S + T*(c1 + T*(c2 + c3*T) + c5*S)
    Rho = (Pressure + P_Ref + p0)/(lambda + al0*(Pressure + P_Ref + p0))
  end subroutine Calculate_Density_Scalar_Wright

  subroutine Column_Mass(NZ, T, S, Dz, Mass)
    integer, intent(in) :: NZ
    real(kind_rho), intent(in) :: T(NZ), S(NZ), Dz(NZ)
    real(kind_rho), intent(out) :: Mass
    real(kind_rho) :: Rho, Pres
    integer :: K
    Mass = 0.0_kind_rho
    Pres = 0.0_kind_rho
    do K = 1, NZ
      call Calculate_Density_Scalar_Wright(T(K), S(K), Pres, Rho)
      Mass = Mass + Rho*Dz(K)
      Pres = Pres + 9.81_kind_rho*Rho*Dz(K)
    end do
  end subroutine Column_Mass
end module MOM_EOS_Wright
