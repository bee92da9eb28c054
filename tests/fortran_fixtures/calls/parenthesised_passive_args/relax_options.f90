! Newtonian relaxation of a temperature column towards a reference,
! with an optional 1-2-1 smoother and a choice of time scheme given by a
! character option, as in a namelist-driven physics package.  The driver
! passes parenthesised copies of its configuration (a derived type), its
! logical switch, its character option and its counts: Fortran passes
! the values of such expressions, not the variables.
module relax_options
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  type :: relax_config
    real(wp) :: tau = 3600.0_wp
    real(wp) :: dt = 600.0_wp
    integer :: nsmooth = 1
  end type relax_config
contains
  subroutine relax_step(cfg, lsmooth, scheme, nz, t, tref)
    type(relax_config), intent(in) :: cfg
    logical, intent(in) :: lsmooth
    character(len=*), intent(in) :: scheme
    integer, intent(in) :: nz
    real(wp), intent(inout) :: t(nz)
    real(wp), intent(in) :: tref(nz)
    real(wp) :: a, tm(nz)
    integer :: k, is
    a = cfg%dt / cfg%tau
    if (scheme(1:8) == 'implicit') then
      do k = 1, nz
        t(k) = (t(k) + a*tref(k)) / (1.0_wp + a)
      end do
    else
      do k = 1, nz
        t(k) = t(k) - a*(t(k) - tref(k))*exp(-0.01_wp*(t(k) - tref(k))**2)
      end do
    end if
    if (lsmooth) then
      do is = 1, cfg%nsmooth
        tm = t
        do k = 2, nz - 1
          t(k) = 0.25_wp*tm(k-1) + 0.5_wp*tm(k) + 0.25_wp*tm(k+1)
        end do
      end do
    end if
  end subroutine relax_step

  subroutine relax_column(nz, nsub, t, tref)
    integer, intent(in) :: nz, nsub
    real(wp), intent(inout) :: t(nz)
    real(wp), intent(in) :: tref(nz)
    type(relax_config) :: cfg
    logical :: lsmooth
    character(len=16) :: scheme
    integer :: isub
    cfg%tau = 1800.0_wp
    cfg%nsmooth = 2
    do isub = 1, nsub
      lsmooth = mod(isub, 2) == 1
      if (isub == nsub) then
        scheme = 'implicit'
      else
        scheme = 'explicit'
      end if
      call relax_step((cfg), (lsmooth), (scheme), (nz), t, tref)
    end do
  end subroutine relax_column
end module relax_options
