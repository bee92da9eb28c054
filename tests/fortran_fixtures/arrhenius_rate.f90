! Arrhenius reaction rate with a power-law concentration dependence
! (order active too: x**y with both operands active), its decimal
! logarithm and the Q10 temperature coefficient.  External subroutine.
! adfort: routine=arrhenius dep=rate,log_rate,q10 indep=a,ea,temp,conc,order
! adfort: init a=1e9:1e10 ea=40000:60000 temp=280:320 conc=0.1:2 order=0.8:2.2
subroutine arrhenius(a, ea, temp, conc, order, rate, log_rate, q10)
  implicit none
  real(kind=8), intent(in) :: a, ea, temp, conc, order
  real(kind=8), intent(out) :: rate, log_rate, q10
  real(kind=8), parameter :: r_gas = 8.314462618d0
  rate = a*exp(-ea/(r_gas*temp))*conc**order
  log_rate = log10(rate)
  q10 = exp(10.0d0*ea/(r_gas*temp*(temp + 10.0d0)))
end subroutine arrhenius
