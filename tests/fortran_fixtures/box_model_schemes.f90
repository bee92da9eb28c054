! Box model of a chain of nbox reservoirs with saturating (Michaelis-
! Menten) transfer from box i-1 to box i and first-order loss, integrated
! over nt steps by a time scheme picked with SELECT CASE on an integer
! option: 1 forward Euler, 2 or 3 Heun (RK2), anything else classical RK4.
! adfort: routine=box_chain dep=c indep=c,vmax,kloss
! adfort: init nbox=15 nt=20 scheme=4 dt=0.05 c=0.5:2 vmax=0.5:1.5 kloss=0.05:0.2
! adfort: bench nbox=2000 nt=200
module box_chain_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: khalf = 0.8_wp
contains
  subroutine box_chain(nbox, nt, scheme, dt, vmax, kloss, c)
    integer, intent(in) :: nbox, nt, scheme
    real(wp), intent(in) :: dt, vmax(nbox), kloss
    real(wp), intent(inout) :: c(nbox)
    real(wp) :: k1(nbox), k2(nbox), k3(nbox), k4(nbox), ctmp(nbox)
    integer :: step, i
    do step = 1, nt
      ! (the tendency is written out in each stage)
      k1(1) = -vmax(1)*c(1)/(khalf + c(1)) - kloss*c(1)
      do i = 2, nbox
        k1(i) = vmax(i - 1)*c(i - 1)/(khalf + c(i - 1)) &
             - vmax(i)*c(i)/(khalf + c(i)) - kloss*c(i)
      end do
      select case (scheme)
      case (1)
        c = c + dt*k1
      case (2, 3)
        ctmp = c + dt*k1
        k2(1) = -vmax(1)*ctmp(1)/(khalf + ctmp(1)) - kloss*ctmp(1)
        do i = 2, nbox
          k2(i) = vmax(i - 1)*ctmp(i - 1)/(khalf + ctmp(i - 1)) &
               - vmax(i)*ctmp(i)/(khalf + ctmp(i)) - kloss*ctmp(i)
        end do
        c = c + 0.5_wp*dt*(k1 + k2)
      case default
        ctmp = c + 0.5_wp*dt*k1
        k2(1) = -vmax(1)*ctmp(1)/(khalf + ctmp(1)) - kloss*ctmp(1)
        do i = 2, nbox
          k2(i) = vmax(i - 1)*ctmp(i - 1)/(khalf + ctmp(i - 1)) &
               - vmax(i)*ctmp(i)/(khalf + ctmp(i)) - kloss*ctmp(i)
        end do
        ctmp = c + 0.5_wp*dt*k2
        k3(1) = -vmax(1)*ctmp(1)/(khalf + ctmp(1)) - kloss*ctmp(1)
        do i = 2, nbox
          k3(i) = vmax(i - 1)*ctmp(i - 1)/(khalf + ctmp(i - 1)) &
               - vmax(i)*ctmp(i)/(khalf + ctmp(i)) - kloss*ctmp(i)
        end do
        ctmp = c + dt*k3
        k4(1) = -vmax(1)*ctmp(1)/(khalf + ctmp(1)) - kloss*ctmp(1)
        do i = 2, nbox
          k4(i) = vmax(i - 1)*ctmp(i - 1)/(khalf + ctmp(i - 1)) &
               - vmax(i)*ctmp(i)/(khalf + ctmp(i)) - kloss*ctmp(i)
        end do
        c = c + dt/6.0_wp*(k1 + 2.0_wp*k2 + 2.0_wp*k3 + k4)
      end select
    end do
  end subroutine box_chain
end module box_chain_mod
