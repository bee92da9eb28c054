"""Elemental subroutines given arrays (adfort/elemental.py applies them
element by element in a loop nest), with an actual argument that is an
array expression reading the array another argument changes: Fortran
evaluates the expression whole before the call, so each element call sees
the values the array had before the call.  adfort evaluated it element by
element inside its loop, after the calls on earlier elements had changed
the array: the primal and the gradient were both wrong, without a message
(a Jacobi sweep became a Gauss-Seidel one).

Also elemental references given shifted arrays (CSHIFT, EOSHIFT),
evaluated into arrays before the loop over elements.

The kernels are FD-checked under split, joint and joint with calls kept
(no inlining), r_rev's primal results compared with r's."""

import textwrap

import pytest

import harness

CASES = {
    # The reproducer: the expression shifts the array changed by one.
    "jacobi_shift.f90": """\
        ! adfort: routine=smooth dep=t indep=t
        ! adfort: init n=6 t=0.5:2
        module jacobi_shift
          implicit none
        contains
          elemental subroutine relax(x, xref)
            real(8), intent(inout) :: x
            real(8), intent(in) :: xref
            x = 0.5d0*(x + xref)
          end subroutine relax
          subroutine smooth(n, t)
            integer, intent(in) :: n
            real(8), intent(inout) :: t(n)
            call relax(t(2:n), t(1:n-1)*1d0)
          end subroutine smooth
        end module jacobi_shift
        """,
    # A three-point average of the neighbours on both sides, an elemental
    # intrinsic in the expression, a second array written through an
    # intent(out) argument, a keyword argument, and a rank-2 field whose
    # column the expression reads through a component-free section; the
    # elemental subroutine is long enough not to be inlined.
    "jacobi_neighbours.f90": """\
        ! adfort: routine=sweep dep=t,q indep=t,w
        ! adfort: init nz=7 nc=3 t=0.5:2 w=0.5:2
        module jacobi_neighbours
          implicit none
        contains
          elemental subroutine mix(x, xref, weight, flux)
            real(8), intent(inout) :: x
            real(8), intent(in) :: xref, weight
            real(8), intent(out) :: flux
            real(8) :: a, b, c
            a = weight*(xref - x)
            b = a*a
            c = sin(b) + x
            flux = c*xref
            x = x + a + 0.1d0*c
            if (x > 1d0) then
              x = x - 0.05d0*b
            else
              x = x + 0.05d0*b
            end if
          end subroutine mix
          subroutine sweep(nz, nc, t, w, q)
            integer, intent(in) :: nz, nc
            real(8), intent(inout) :: t(nz, nc)
            real(8), intent(in) :: w(nz)
            real(8), intent(out) :: q(nz, nc)
            integer :: k
            q = 0d0
            do k = 1, nc
              call mix(t(2:nz-1, k), 0.5d0*(t(1:nz-2, k) + sqrt(t(3:nz, k))), &
                       flux=q(2:nz-1, k), weight=w(2:nz-1))
            end do
            call mix(t, 2d0*t, w(1)*0.1d0, q)
          end subroutine sweep
        end module jacobi_neighbours
        """,
    # Array-syntax advection on a periodic ring: an elemental limiter
    # function given CSHIFTs of the field, an elemental subroutine given an
    # EOSHIFT.  Element i of CSHIFT(q, 1) is not CSHIFT of element i: the
    # arguments are evaluated into arrays first (adfort refused them).
    "periodic_limiter_shifts.f90": """\
        ! adfort: routine=advect dep=q indep=q,c
        ! adfort: init n=9 nt=3 q=0.5:2 c=0.1:0.4
        module periodic_limiter_shifts
          implicit none
        contains
          elemental real(8) function minmod_ratio(dl, dr)
            real(8), intent(in) :: dl, dr
            minmod_ratio = dl*dr*(dl + dr)/(dl*dl + dr*dr + 1d-3)
          end function minmod_ratio
          elemental subroutine damp(x, upstream, rate)
            real(8), intent(inout) :: x
            real(8), intent(in) :: upstream, rate
            x = x - rate*(x - upstream)**2/(1d0 + x*x)
          end subroutine damp
          subroutine advect(n, nt, c, q)
            integer, intent(in) :: n, nt
            real(8), intent(in) :: c(n)
            real(8), intent(inout) :: q(n)
            real(8) :: f(n)
            integer :: it
            do it = 1, nt
              f(:n-1) = c(:n-1)*(q(:n-1) + 0.5d0*(1d0 - c(:n-1))*minmod_ratio( &
                  eoshift(q(:n-1), 1, boundary=q(n)) - q(:n-1), q(:n-1) - cshift(q(:n-1), -1)))
              f(n) = c(n)*q(n)
              q = q - (f - cshift(f, -1))
              call damp(q(2:), eoshift(q(:n-1), -1, boundary=q(1)), 0.05d0*c(2:))
            end do
          end subroutine advect
        end module periodic_limiter_shifts
        """,
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients(tmp_path, name, schedule):
    harness.check_source(tmp_path, name, CASES[name], schedule)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_calls_kept(tmp_path, name):
    path = tmp_path / name
    path.write_text(textwrap.dedent(CASES[name]))
    res = harness.check_fixture(path, "joint", tmp_path / "joint-calls",
                                extra_cli=["--no-inline"])
    assert res.rel_err < 1e-6, res.describe()
    assert res.primal_err < 1e-10, res.describe()


def test_expression_reading_only_unchanged_arrays_stays_elementwise(tmp_path):
    """An expression reading nothing the call changes is still taken
    element by element in the loop (no array stored first)."""
    text = textwrap.dedent(CASES["jacobi_shift.f90"]).replace(
        "t(1:n-1)*1d0", "2d0*t0(1:n-1)").replace(
        "real(8), intent(inout) :: t(n)",
        "real(8), intent(inout) :: t(n)\n    real(8) :: t0(n)\n    t0 = t**2")
    generated = harness.differentiate_text(tmp_path, "apart.f90", text)
    assert "relax_argument(" not in generated
