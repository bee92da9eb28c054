! The routine differentiated sets its intent(out) dummy from the default
! value of its type.
module acc_mod
  implicit none
  type :: acc_t
    real(8) :: s = 2d0
    real(8) :: q
  end type acc_t
contains
  subroutine init_acc(x, b)
    real(8), intent(in) :: x
    type(acc_t), intent(out) :: b
    b%s = b%s * x**2
    b%q = b%s + x
  end subroutine init_acc
end module acc_mod
