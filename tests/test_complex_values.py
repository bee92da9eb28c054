"""Complex values: passive ones (literals, parameters, dummies, locals and
arrays the returning motion needs) are kept, and handed over on the real
tape of their kind as their real and imaginary parts; an operation a
derivative flows through whose value or operand is complex is refused by
the fence (adfort's rules are those of real values: ``real(exp(iu*x))``
was differentiated as if ``iu`` were real, a silently wrong gradient)."""

import subprocess
import sys
import textwrap

import pytest

import harness

ACCEPTED = {
    # A complex literal in a statement (was an unsupported COMPLEX_LITERAL_CONSTANT).
    "literal": """\
        ! adfort: routine=lit dep=y indep=x
        ! adfort: init x=0.5:1.5
        subroutine lit(x, y)
          real(8), intent(in) :: x
          real(8), intent(out) :: y
          complex(8) :: z
          z = (0.3d0, 0.4d0)
          y = x*abs(z)
        end subroutine lit
        """,
    # A complex PARAMETER in passive complex arithmetic.
    "parameter": """\
        ! adfort: routine=litp dep=y indep=x
        ! adfort: init x=0.5:1.5
        subroutine litp(x, y)
          real(8), intent(in) :: x
          real(8), intent(out) :: y
          complex(8), parameter :: iu = (0.0d0, 1.0d0)
          complex(8) :: z
          z = exp(iu*0.7d0)
          y = x*real(z, 8) + x**2*aimag(z)
        end subroutine litp
        """,
    # A passive complex local set once and read by the returning motion
    # (was "cannot save a value of this type").
    "local set once": """\
        ! adfort: routine=cabs_once dep=y indep=x,w
        ! adfort: init x=0.5:1.5 w=0.2:0.9
        subroutine cabs_once(x, w, y)
          real(8), intent(in) :: x, w
          real(8), intent(out) :: y
          complex(8) :: z
          z = cmplx(1d0, 2d0, kind=8)
          y = abs(z)*x + real(z)*w + sqrt(abs(z))*x*w
        end subroutine cabs_once
        """,
    # Set at each iteration and read there: saved per iteration.
    "local in a loop": """\
        ! adfort: routine=k dep=y indep=x
        ! adfort: init n=4 x=0.5:1.5
        subroutine k(n, x, y)
          integer, intent(in) :: n
          real(8), intent(in) :: x(n)
          real(8), intent(out) :: y
          complex(8) :: z
          integer :: i
          y = 0
          do i = 1, n
            z = cmplx(cos(0.3d0*i), 1d0, 8)
            y = y + x(i)**2*real(z)
          end do
        end subroutine k
        """,
    # Default-kind complex: its parts go on the default real tape.
    "default kind": """\
        ! adfort: routine=k dep=y indep=x
        ! adfort: init n=4 x=0.5:1.5
        subroutine k(n, x, y)
          integer, intent(in) :: n
          real(8), intent(in) :: x(n)
          real(8), intent(out) :: y
          complex :: z
          integer :: i
          y = 0
          do i = 1, n
            z = cmplx(cos(0.3*i), 1.0)
            y = y + x(i)**2*real(z) + x(i)*aimag(z)
          end do
        end subroutine k
        """,
    # Real intrinsics of a passive complex dummy times an active value.
    "dummy": """\
        ! adfort: routine=k dep=y indep=x
        ! adfort: init x=0.5:1.5 zk=(0.2d0,1.3d0)
        subroutine k(x, zk, y)
          real(8), intent(in) :: x
          complex(8), intent(in) :: zk
          real(8), intent(out) :: y
          y = abs(zk)*x**2 + real(zk*conjg(zk), 8)*sin(x)
        end subroutine k
        """,
    # A passive table of twiddle factors (a rank-2 complex array) handed over.
    "twiddle table": """\
        ! adfort: routine=dft_cost dep=cost indep=s
        ! adfort: init n=8 nk=3 s=1:2
        module dft
          implicit none
          integer, parameter :: dp = kind(1.0d0)
        contains
          subroutine dft_cost(n, nk, s, cost)
            integer, intent(in) :: n, nk
            real(dp), intent(in) :: s(n)
            real(dp), intent(out) :: cost
            complex(dp) :: tw(n, nk)
            real(dp) :: are, aim
            integer :: j, k
            do k = 1, nk
              do j = 1, n
                tw(j, k) = exp(cmplx(0.0_dp, -0.7_dp*real((j-1)*k, dp), kind=dp))
              end do
            end do
            cost = 0.0_dp
            do k = 1, nk
              are = 0.0_dp
              aim = 0.0_dp
              do j = 1, n
                are = are + s(j)*real(tw(j, k), dp)
                aim = aim + s(j)*aimag(tw(j, k))
              end do
              cost = cost + sqrt(are**2 + aim**2)
            end do
          end subroutine dft_cost
        end module dft
        """,
    # A rank-1 complex array read, then overwritten.
    "array overwritten": """\
        ! adfort: routine=k dep=y indep=x
        ! adfort: init n=5 x=0.5:1.5
        subroutine k(n, x, y)
          integer, intent(in) :: n
          real(8), intent(in) :: x(n)
          real(8), intent(out) :: y
          complex(8) :: tw(n), zs
          real(8) :: s
          integer :: i
          do i = 1, n
            tw(i) = exp(cmplx(0d0, 0.4d0*i, kind=8))
          end do
          zs = sum(tw)
          s = 0
          do i = 1, n
            s = s + x(i)**2*real(tw(i), 8)*abs(zs)
          end do
          tw = conjg(tw)
          y = s
        end subroutine k
        """,
    # A passive complex inout dummy a callee rotates at each step: saved
    # before each call, and copied for r_rev's results (the copy's
    # declaration named the dummy again, with its INTENT).
    "inout dummy array": """\
        ! adfort: routine=spectrum_run dep=cost indep=e0,uwind
        ! adfort: init nf=4 nt=3 e0=0.1:1 uwind=5:15 zph=(1.0d0,0.0d0)
        module wave_step_mod
          implicit none
          integer, parameter :: dp = kind(1.0d0)
        contains
          subroutine wave_step(nf, e, uwind, zph)
            integer, intent(in) :: nf
            real(dp), intent(inout) :: e(nf)
            real(dp), intent(in) :: uwind
            complex(dp), intent(inout) :: zph(nf)
            real(dp) :: w
            integer :: i
            do i = 1, nf
              zph(i) = zph(i)*exp(cmplx(0.0_dp, 0.3_dp*real(i, dp), kind=dp))
              w = 1.0_dp + 0.2_dp*real(zph(i), dp)
              e(i) = e(i)*(1.0_dp + 1.0e-3_dp*uwind**2*w) - 0.01_dp*e(i)**2
            end do
          end subroutine wave_step

          subroutine spectrum_run(nf, nt, e0, uwind, zph, cost)
            integer, intent(in) :: nf, nt
            real(dp), intent(in) :: e0(nf), uwind
            complex(dp), intent(inout) :: zph(nf)
            real(dp), intent(out) :: cost
            real(dp) :: e(nf)
            integer :: n
            e = e0
            do n = 1, nt
              call wave_step(nf, e, uwind, zph)
            end do
            cost = sum(e**2)
          end subroutine spectrum_run
        end module wave_step_mod
        """,
}


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("case", sorted(ACCEPTED))
def test_passive_complex_values_are_kept(case, schedule, tmp_path):
    harness.check_source(tmp_path, "k.f90", ACCEPTED[case], schedule)


REFUSED = {
    # A complex PARAMETER times an active real (the gradient was silently wrong).
    "parameter": ("""\
        subroutine k(x, y)
          real(8), intent(in) :: x
          real(8), intent(out) :: y
          complex(8), parameter :: iu = cmplx(0d0, 1d0, kind=8)
          y = real(exp(iu*x), 8)
        end subroutine k
        """, 5, "'EXP(iu * x)' is complex and carries a derivative"),
    # A passive complex dummy (silently wrong).
    "dummy": ("""\
        subroutine k(x, zk, y)
          real(8), intent(in) :: x
          complex(8), intent(in) :: zk
          real(8), intent(out) :: y
          y = real(exp(zk*x), 8)
        end subroutine k
        """, 5, "'EXP(zk * x)' is complex and carries a derivative"),
    # |x + i w|: SIGN(1.0_8, complex) in the generated code.
    "abs": ("""\
        subroutine k(x, w, y)
          real(8), intent(in) :: x, w
          real(8), intent(out) :: y
          complex(8), parameter :: iu = cmplx(0d0, 1d0, kind=8)
          y = abs(x + iu*w)
        end subroutine k
        """, 5, "'x + iu * w' is complex and carries a derivative"),
    # CMPLX of passive values minus an active one (MERGE of complex and real).
    "sqrt of cmplx": ("""\
        subroutine k(x, a, b, y)
          real(8), intent(in) :: x, a, b
          real(8), intent(out) :: y
          y = real(sqrt(cmplx(a, b, kind=8) - x), 8)
        end subroutine k
        """, 4, "'SQRT(CMPLX(a, y=b, kind=8) - x)' is complex and carries a derivative"),
    # A complex literal times an active value.
    "literal": ("""\
        subroutine k(x, y)
          real(8), intent(in) :: x
          real(8), intent(out) :: y
          y = x*(1d0, 2d0)
        end subroutine k
        """, 4, "'x * (1D0, 2D0)' is complex and carries a derivative"),
    # A passive complex local (was the taping message).
    "local": ("""\
        subroutine k(x, y)
          real(8), intent(in) :: x
          real(8), intent(out) :: y
          complex(8) :: iu
          iu = cmplx(0d0, 1d0, kind=8)
          y = real(exp(iu*x), 8)
        end subroutine k
        """, 6, "'EXP(iu * x)' is complex and carries a derivative"),
    # A complex module constant seen through a USE.
    "module constant": ("""\
        module cm
          implicit none
          integer, parameter :: dp = kind(1d0)
          complex(dp), parameter :: iu = (0.0_dp, 1.0_dp)
        end module cm
        subroutine k(x, y)
          use cm, only: dp, iu
          real(dp), intent(in) :: x
          real(dp), intent(out) :: y
          y = x*abs(iu) + real(x*iu, dp)
        end subroutine k
        """, 10, "'x * iu' is complex and carries a derivative"),
    # An active complex accumulator set from a literal (was the
    # unsupported COMPLEX_LITERAL_CONSTANT).
    "active accumulator": ("""\
        subroutine k(n, x, y)
          integer, intent(in) :: n
          real(8), intent(in) :: x(n)
          real(8), intent(out) :: y
          complex(8) :: c
          integer :: j
          c = (0.0d0, 0.0d0)
          do j = 1, n
            c = c + x(j)*cmplx(cos(0.1d0*j), sin(0.1d0*j), kind=8)
          end do
          y = real(c*conjg(c), 8)
        end subroutine k
        """, 7, "'c' is complex"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_derivatives_meeting_complex_values_are_refused(case, tmp_path):
    text, line, message = REFUSED[case]
    source = tmp_path / "k.f90"
    source.write_text(textwrap.dedent(text))
    out = tmp_path / "k_ad.f90"
    done = subprocess.run([sys.executable, "-m", "adfort", "diff", str(source), "--routine",
                           "k", "--dep", "y", "--indep", "x", "-o", str(out)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert f"k.f90:{line}:" in done.stderr, done.stderr
    assert message in done.stderr, done.stderr
    assert "complex active values are not supported" in done.stderr, done.stderr
    assert not out.exists()
