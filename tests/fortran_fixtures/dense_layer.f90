! One dense neural-network layer used as a learned physics emulator:
! y = tanh(W x + b) (MATMUL), a squared-error loss against a target
! (DOT_PRODUCT), L2 weight decay (SUM of squares) and an energy norm of the
! input with a symmetric positive-definite metric, 0.5 x' M x with
! M = A' A + I built with TRANSPOSE and MATMUL.
! adfort: routine=dense_layer dep=y,loss indep=w,b,x
! adfort: init nin=8 nout=5 w=-0.5:0.5 b=-0.2:0.2 x=-1:1 target=-0.5:0.5 a=-0.3:0.3
! adfort: bench nin=400 nout=300
module emulator_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp), parameter :: decay = 1.0e-3_wp
contains
  subroutine dense_layer(nin, nout, w, b, x, target, a, y, loss)
    integer, intent(in) :: nin, nout
    real(wp), intent(in) :: w(nout, nin), b(nout), x(nin)
    real(wp), intent(in) :: target(nout), a(nin, nin)
    real(wp), intent(out) :: y(nout), loss
    real(wp) :: z(nout), metric(nin, nin), energy
    integer :: i
    z = matmul(w, x) + b
    y = tanh(z)
    metric = matmul(transpose(a), a)
    do i = 1, nin
      metric(i, i) = metric(i, i) + 1.0_wp
    end do
    energy = 0.5_wp*dot_product(x, matmul(metric, x))
    loss = 0.5_wp*dot_product(y - target, y - target) + decay*sum(w**2) &
         + 0.01_wp*energy
  end subroutine dense_layer
end module emulator_mod
