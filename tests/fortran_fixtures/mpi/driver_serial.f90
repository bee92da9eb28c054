! The serial heat model's adjoint on the global grid of driver_heat.f90.
program driver_serial
  use heat_serial, only: dp
  use heat_serial_ad, only: model_rev
  implicit none
  integer, parameter :: nx = 6, nyg = 8, nsteps = 3
  integer :: i, j
  real(dp) :: u0(nx, nyg), u0_adj(nx, nyg), params(2), params_adj(2), cost, cost_adj

  do j = 1, nyg
    do i = 1, nx
      u0(i, j) = 0.5_dp + 0.3_dp * sin(0.7_dp * i + 1.3_dp * j)
    end do
  end do
  params = [0.12_dp, 0.25_dp]
  u0_adj = 0.0_dp
  params_adj = 0.0_dp
  cost_adj = 1.0_dp
  call model_rev(u0, u0_adj, params, params_adj, cost, cost_adj, nx, nyg, nsteps)
  write (*, '(a, 3es26.17)') 'COST ', cost
  write (*, '(a, 2es26.17)') 'PARAMS ', params_adj
  write (*, '(a, 6es26.17)') ('GRAD ', u0_adj(:, j), j = 1, nyg)
end program driver_serial
