"""Adjoint formulas stay finite where the primal's values are; array
intrinsics times zero and reductions with a positional DIM.

The partial of ``a/b`` by ``b`` was written ``-a/b**2``: where ``b`` is
large (RRTMG's ``reftra_sw`` in optically thick layers, the exponent
clamped at 500: a denominator near 1e217) ``b**2`` overflows and the
derivative came out 0 (or -Infinity where ``b`` is tiny), exit 0.  It is
``-(a/b)/b`` now.
"""

import pytest

import harness

QUOTIENTS = """\
    ! adfort: routine=thick dep=r,t indep=tau,w
    ! adfort: init n=4 tau=300:900 w=0.2:0.9 r=0 t=0
    subroutine thick(n, tau, w, r, t)
      integer, intent(in) :: n
      real(8), intent(in) :: tau(n), w(n)
      real(8), intent(out) :: r(n), t(n)
      real(8) :: e, den, big
      integer :: k
      do k = 1, n
        e = exp(min(sqrt(1d0 - w(k))*tau(k), 500d0))
        den = (1d0 + w(k))*e + (1d0 - w(k))/e
        r(k) = w(k)*(e - 1d0/e)/den
        ! tiny and huge scales cancel in the quotient
        big = exp(-400d0)*w(k)
        t(k) = (tau(k)*big)/(w(k)*big) + 1d0/(den*1d-100)*1d-100
      end do
    end subroutine thick
    """


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_quotients_with_huge_and_tiny_denominators(schedule, tmp_path):
    harness.check_source(tmp_path, "k.f90", QUOTIENTS, schedule)


# An array intrinsic's value times a literal zero (a term switched off):
# the zero reached the intrinsic's adjoint as a scalar, SPREAD(0.0d0, 2, n)
# and MATMUL(0.0d0, a), which do not compile.
ZERO_TERMS = {
    "sum with dim": "y = sum(a, dim=2) * 0.0d0 + a(:, 2) * x(2) + b(1, :)",
    "matmul": "y = matmul(a, x) * 0d0 + a(:, 2) * x(2) + b(1, :)",
    "matmul of transpose": "y = matmul(transpose(b), x(1:3)) * 0.0d0 + a(:, 2)*x(2) + b(1, :)",
    "cshift": "y = cshift(a(:,1), 1) * 0d0 + a(:, 2) * x(2) + b(1, :)",
    "eoshift": "y = eoshift(a(:,2), 1) * 0d0 + a(:, 2) * x(2) + b(1, :)",
    "zero first": "y = 0d0*matmul(a, x) + sin(a(:, 2)) * x(2) + b(1, :)",
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("case", sorted(ZERO_TERMS))
def test_array_intrinsic_times_zero(case, schedule, tmp_path):
    harness.check_source(tmp_path, "k.f90", f"""\
        ! adfort: routine=f dep=y indep=a,b,x
        ! adfort: init a=0.5:1.5 b=0.5:1.5 x=0.5:1.5 y=0
        module zero_terms
          implicit none
        contains
          subroutine f(a, b, x, y)
            real(8), intent(in) :: a(2, 3), b(3, 2), x(3)
            real(8), intent(out) :: y(2)
            {ZERO_TERMS[case]}
          end subroutine f
        end module zero_terms
        """, schedule)


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_reductions_with_a_positional_dim(schedule, tmp_path):
    # ecRad's sum(f_up, 1): "cannot tell which form of the intrinsic call".
    harness.check_source(tmp_path, "k.f90", """\
        ! adfort: routine=colsum dep=s,m indep=a
        ! adfort: init a=0.5:1.5 s=0 m=0
        subroutine colsum(a, s, m)
          real(8), intent(in) :: a(3, 4)
          real(8), intent(out) :: s(4), m(3)
          s = sum(a**2, 1) + product(a, 1)
          m = maxval(sin(a), 2) + sum(a, 2)
        end subroutine colsum
        """, schedule)
