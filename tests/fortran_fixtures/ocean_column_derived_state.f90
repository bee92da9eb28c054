! One-dimensional ocean column on a derived-type state: a Richardson-like
! vertical diffusivity from the stratification of a quadratic equation of
! state (its reference temperature taken from the initial surface value),
! implicit diffusion of temperature and salinity by a Thomas sweep written
! in place, surface heat and freshwater fluxes.  The grid spacing and the
! time step live in the state with the fields and never vary: their
! adjoints receive nothing and nothing is taped for them.
! adfort: routine=column_cost dep=cost indep=t0,s0
! adfort: init nz=8 nt=3 t0=2:20 s0=33:36 tobs=2:20
! adfort: shape t0=nz s0=nz tobs=nz
! adfort: bench nz=100 nt=2000
module ocean_column
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  type :: column_state
    integer :: nz
    real(wp), allocatable :: t(:), s(:), kv(:)
    real(wp) :: dz, dt, tref
  end type column_state
contains
  pure real(wp) function rho_eos(t, s, tref)
    real(wp), intent(in) :: t, s, tref
    rho_eos = 1025.0_wp*(1.0_wp - 2.0e-4_wp*(t - tref) - 5.0e-6_wp*(t - tref)**2 &
              + 7.6e-4_wp*(s - 35.0_wp))
  end function rho_eos

  subroutine mixing_coeffs(st)
    type(column_state), intent(inout) :: st
    integer :: k
    real(wp) :: n2
    do k = 1, st%nz - 1
      n2 = 9.81_wp/1025.0_wp*(rho_eos(st%t(k+1), st%s(k+1), st%tref) &
           - rho_eos(st%t(k), st%s(k), st%tref))/st%dz
      if (n2 > 0.0_wp) then
        st%kv(k) = 1.0e-5_wp + 1.0e-3_wp/(1.0_wp + 100.0_wp*n2)
      else
        st%kv(k) = 1.0e-1_wp
      end if
    end do
    st%kv(st%nz) = 0.0_wp
  end subroutine mixing_coeffs

  subroutine diffuse(st, q, flux)
    type(column_state), intent(in) :: st
    real(wp), intent(inout) :: q(:)
    real(wp), intent(in) :: flux
    real(wp) :: a(st%nz), b(st%nz), c(st%nz), r(st%nz), w
    integer :: k, n
    n = st%nz
    do k = 1, n
      a(k) = 0.0_wp
      c(k) = 0.0_wp
      if (k > 1) a(k) = -st%dt*st%kv(k-1)/st%dz**2
      if (k < n) c(k) = -st%dt*st%kv(k)/st%dz**2
      b(k) = 1.0_wp - a(k) - c(k)
      r(k) = q(k)
    end do
    r(1) = r(1) + st%dt*flux/st%dz
    do k = 2, n
      w = a(k)/b(k-1)
      b(k) = b(k) - w*c(k-1)
      r(k) = r(k) - w*r(k-1)
    end do
    q(n) = r(n)/b(n)
    do k = n - 1, 1, -1
      q(k) = (r(k) - c(k)*q(k+1))/b(k)
    end do
  end subroutine diffuse

  subroutine column_cost(nz, nt, t0, s0, tobs, cost)
    integer, intent(in) :: nz, nt
    real(wp), intent(in) :: t0(nz), s0(nz), tobs(nz)
    real(wp), intent(out) :: cost
    type(column_state) :: st
    integer :: it
    st%nz = nz
    st%dz = 10.0_wp
    st%dt = 3600.0_wp
    allocate(st%t(nz), st%s(nz), st%kv(nz))
    st%t = t0
    st%s = s0
    st%tref = t0(1)
    do it = 1, nt
      call mixing_coeffs(st)
      call diffuse(st, st%t, -50.0_wp/(1025.0_wp*3990.0_wp))
      call diffuse(st, st%s, 1.0e-6_wp)
    end do
    cost = 0.5_wp*sum((st%t - tobs)**2)
    deallocate(st%t, st%s, st%kv)
  end subroutine column_cost
end module ocean_column
