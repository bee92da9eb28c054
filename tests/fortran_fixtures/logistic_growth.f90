! One classical Runge-Kutta (RK4) step of logistic growth with
! proportional harvesting, unrolled: locals are overwritten several times
! and the increment is accumulated (incr = incr + 2*k2 ...).  Arguments
! have no INTENT; pop is both dependent and independent.
! adfort: routine=logistic_rk4 dep=pop,harvest,revenue indep=pop,r,k,effort
! adfort: init pop=10:80 r=0.2:0.8 k=100:200 effort=0.01:0.05 dt=0.5 price=2.5
module ecology_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
contains
  subroutine logistic_rk4(pop, r, k, effort, dt, price, harvest, revenue)
    real(wp) :: pop, r, k, effort, dt, price, harvest, revenue
    real(wp) :: k1, k2, k3, k4, ptmp, incr
    k1 = r*pop*(1.0_wp - pop/k) - effort*pop
    ptmp = pop + 0.5_wp*dt*k1
    k2 = r*ptmp*(1.0_wp - ptmp/k) - effort*ptmp
    ptmp = pop + 0.5_wp*dt*k2
    k3 = r*ptmp*(1.0_wp - ptmp/k) - effort*ptmp
    ptmp = pop + dt*k3
    k4 = r*ptmp*(1.0_wp - ptmp/k) - effort*ptmp
    incr = k1
    incr = incr + 2.0_wp*k2
    incr = incr + 2.0_wp*k3
    incr = incr + k4
    ! trapezoidal catch over the step, then pop advanced in place
    harvest = 0.5_wp*dt*effort*(pop + ptmp)
    pop = pop + dt*incr/6.0_wp
    ! revenue with a 3 % price premium: a = a*b + a
    revenue = price*harvest
    revenue = revenue*0.03_wp + revenue
  end subroutine logistic_rk4
end module ecology_mod
