! Sutherland's law for the dynamic viscosity and conductivity of air,
! Reynolds and Prandtl numbers.  length is a passive real input.
! adfort: routine=sutherland dep=mu,reynolds,prandtl indep=temp,rho,vel
! adfort: init temp=200:1500 rho=0.2:1.5 vel=1:50 length=0.5
module gas_mod
  implicit none
contains
  subroutine sutherland(temp, rho, vel, length, mu, reynolds, prandtl)
    real*8, intent(in) :: temp, rho, vel, length
    real*8, intent(out) :: mu, reynolds, prandtl
    real*8, parameter :: mu_ref = 1.716d-5, t_ref = 273.15d0, s_mu = 110.4d0
    real*8, parameter :: k_ref = 0.0241d0, s_k = 194.0d0, cp = 1005.0d0
    real*8 :: k_cond
    mu = mu_ref*(temp/t_ref)**1.5d0*(t_ref + s_mu)/(temp + s_mu)
    reynolds = rho*vel*length/mu
    k_cond = k_ref*(temp/t_ref)**1.5d0*(t_ref + s_k)/(temp + s_k)
    prandtl = cp*mu/k_cond
  end subroutine sutherland
end module gas_mod
