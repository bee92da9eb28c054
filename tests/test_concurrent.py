"""DO CONCURRENT with a mask: PSyclone dropped the mask, so the body ran
for every index (primal error 1.4, gradient error 0.18, no message); the
front end makes it an IF around the body (adfort/concurrent.py)."""

import pytest

import harness

CASES = {
    "masked.f90": """\
        ! adfort: routine=masked_sq dep=y indep=x
        ! adfort: init n=6 x=-1:1 y=0
        subroutine masked_sq(n, x, y)
          implicit none
          integer, intent(in) :: n
          real(8), intent(inout) :: x(n)
          real(8), intent(out) :: y
          integer :: i
          do concurrent (i = 1:n, x(i) > 0d0)
            x(i) = x(i)**2
          end do
          y = sum(x)
        end subroutine masked_sq
        """,
    "nested_continued.f90": """\
        ! adfort: routine=sat_adjust dep=q,t indep=q,t
        ! adfort: init nx=4 ny=3 q=0.002:0.03 t=260:300 p=500:1000
        subroutine sat_adjust(nx, ny, p, q, t)
          implicit none
          integer, intent(in) :: nx, ny
          real(8), intent(in) :: p(nx, ny)
          real(8), intent(inout) :: q(nx, ny), t(nx, ny)
          real(8) :: qs, dq
          integer :: i, j
          ! condense where the air is supersaturated above 700 hPa
          do concurrent (j = 1:ny, i = 1:nx, &
                         p(i, j) < 700d0 .and. q(i, j) > 0.622d0*6.112d0* &
                         exp(17.67d0*(t(i, j) - 273.15d0)/(t(i, j) - 29.65d0))/p(i, j))
            qs = 0.622d0*6.112d0*exp(17.67d0*(t(i, j) - 273.15d0)/(t(i, j) - 29.65d0))/p(i, j)
            dq = 0.5d0*(q(i, j) - qs)
            q(i, j) = q(i, j) - dq
            t(i, j) = t(i, j) + 2.5d6/1004d0*dq
          end do
        end subroutine sat_adjust
        """,
    "fixed_form.f": """\
C adfort: routine=CLIP dep=Y indep=X
C adfort: init N=7 X=-1:1
      SUBROUTINE CLIP(N, X, Y)
      INTEGER N, I
      DOUBLE PRECISION X(N), Y
      DO CONCURRENT (I = 1:N:2,
     &               X(I) .GT. 0.D0)
        X(I) = X(I)**3
      END DO
      Y = 0.D0
      DO 10 I = 1, N
        Y = Y + X(I)*DBLE(I)
   10 CONTINUE
      END
""",
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_do_concurrent_mask(name, schedule, tmp_path):
    harness.check_source(tmp_path, name, CASES[name], schedule)
