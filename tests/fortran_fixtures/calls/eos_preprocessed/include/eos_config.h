! eos_config.h: working precision and the reference state of the
! equation of state (C-preprocessed: may use macros from -D flags)
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: rho_ref = 1027.0_wp, t_ref = 10.0_wp, s_ref = 35.0_wp
  real(wp), parameter :: alpha = 1.7e-4_wp, beta = 7.6e-4_wp
#ifndef GAMMA_T
#define GAMMA_T 0.0_wp
#endif
