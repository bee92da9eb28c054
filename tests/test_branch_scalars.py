"""Scalars an iteration sets inside the branches of an upwind IF (a
limiter's difference, ratio and value, set in one branch only) are
computed again at the start of the reversed iteration, by a copy of the
IF holding only their assignments, instead of being pushed at each face
(adfort/iterations.py: ``_set_before_use``, ``_filtered``; named
constants of the module, ``eps``, are read there too).  Checked against
finite differences under both schedules."""

import shutil

import pytest

import harness

needs_gfortran = pytest.mark.skipif(shutil.which("gfortran") is None, reason="no gfortran")

CASES = {
    "upwind_limiter.f90": """\
        ! adfort: routine=advect dep=cost indep=q,u
        ! adfort: init n=11 nt=3 q=0.5:1.5 u=-0.8:0.8
        module upwind_limiter
          implicit none
          integer, parameter :: wp = kind(1.0d0)
          real(wp), parameter :: eps = 1.0e-10_wp
        contains
          subroutine advect(n, nt, u, q, cost)
            integer, intent(in) :: n, nt
            real(wp), intent(in) :: u(n)
            real(wp), intent(inout) :: q(n)
            real(wp), intent(out) :: cost
            real(wp) :: f(0:n), d, r, phi, phi_m, flux
            integer :: i, it, im, ip, ipp
            do it = 1, nt
              do i = 1, n
                im = max(i - 1, 1)
                ip = min(i + 1, n)
                ipp = min(i + 2, n)
                if (u(i) >= 0.0_wp) then
                  d = q(ip) - q(i)
                  if (abs(d) > eps) then
                    r = (q(i) - q(im))/d
                  else
                    r = 0.0_wp
                  end if
                  phi = (r + abs(r))/(1.0_wp + abs(r))
                  flux = u(i)*(q(i) + 0.25_wp*phi*d)
                else
                  d = q(i) - q(ip)
                  if (abs(d) > eps) then
                    r = (q(ip) - q(ipp))/d
                  else
                    r = 0.0_wp
                  end if
                  phi_m = (r + abs(r))/(1.0_wp + abs(r))
                  flux = u(i)*(q(ip) + 0.25_wp*phi_m*d)
                end if
                f(i) = flux
              end do
              f(0) = 0.0_wp
              do i = 1, n
                q(i) = q(i) - 0.5_wp*(f(i) - f(i-1))
              end do
            end do
            cost = sum(q**2)
          end subroutine advect
        end module upwind_limiter
        """,
    # F77: the grid's constants in COMMON, the flux written in each
    # branch, a difference kept off zero by a conditional re-set.
    "lax_wendroff_mc.f": """\
C adfort: routine=LWRUN dep=COST indep=Q,VEL
C adfort: init N=12 NT=4 Q=0.5:1.5 VEL=-0.9:0.9
      SUBROUTINE LWSTEP(N, Q, VEL)
      IMPLICIT DOUBLE PRECISION (A-H, O-Z)
      DIMENSION Q(N), VEL(N), F(0:200)
      COMMON /GRID/ DX, DT, EPSL
      DO 10 I = 1, N
        IM = I - 1
        IF (IM .LT. 1) IM = N
        IP = I + 1
        IF (IP .GT. N) IP = 1
        IPP = IP + 1
        IF (IPP .GT. N) IPP = 1
        C = VEL(I)*DT/DX
        DQ = Q(IP) - Q(I)
        IF (ABS(DQ) .LT. EPSL) DQ = SIGN(EPSL, DQ)
        IF (C .GE. 0.0D0) THEN
          R = (Q(I) - Q(IM))/DQ
          PHI = MAX(0.0D0, MIN(2.0D0*R, 0.5D0*(1.0D0 + R), 2.0D0))
          F(I) = VEL(I)*(Q(I) + 0.5D0*(1.0D0 - C)*PHI*DQ)
        ELSE
          R = (Q(IPP) - Q(IP))/DQ
          PHI = MAX(0.0D0, MIN(2.0D0*R, 0.5D0*(1.0D0 + R), 2.0D0))
          F(I) = VEL(I)*(Q(IP) - 0.5D0*(1.0D0 + C)*PHI*DQ)
        END IF
   10 CONTINUE
      F(0) = F(N)
      DO 20 I = 1, N
        Q(I) = Q(I) - DT/DX*(F(I) - F(I-1))
   20 CONTINUE
      RETURN
      END
      SUBROUTINE LWRUN(N, NT, Q, VEL, COST)
      IMPLICIT DOUBLE PRECISION (A-H, O-Z)
      DIMENSION Q(N), VEL(N)
      COMMON /GRID/ DX, DT, EPSL
      DX = 1.0D0
      DT = 0.4D0
      EPSL = 1.0D-8
      DO 30 IT = 1, NT
        CALL LWSTEP(N, Q, VEL)
   30 CONTINUE
      COST = 0.0D0
      DO 40 I = 1, N
        COST = COST + Q(I)**2
   40 CONTINUE
      RETURN
      END
""",
}


@needs_gfortran
@pytest.mark.parametrize("schedule", ["joint", "split"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_branch_scalars_computed_again_give_the_gradient(tmp_path, name, schedule):
    harness.check_source(tmp_path, name, CASES[name], schedule)


def test_branch_scalars_are_not_pushed(tmp_path):
    generated = harness.differentiate_text(tmp_path, "upwind_limiter.f90",
                                           CASES["upwind_limiter.f90"],
                                           ["--schedule", "split"])
    rec = harness.routine_source(generated, "advect_rec")
    # Only the state each step overwrites goes on the tape.
    pushed = [line.split("=")[1].strip() for line in rec.splitlines()
              if "value_tape(value_tape_top + 1" in line and "=" in line]
    assert pushed and all(p.startswith("q") for p in pushed), rec
    ret = harness.routine_source(generated, "advect_ret")
    # The reversed face loop computes the limiter's values again, in a copy
    # of the IF without the flux.
    assert "phi = (r + ABS(r)) / (1.0_wp + ABS(r))" in ret, ret
    assert ret.count("flux = u(i)") == 0, ret


def test_f77_limiter_scalars_are_not_pushed(tmp_path):
    generated = harness.differentiate_text(tmp_path, "lax_wendroff_mc.f",
                                           CASES["lax_wendroff_mc.f"], ["--schedule", "split"])
    rec = harness.routine_source(generated, "LWSTEP_rec")
    pushed = [line.split("=")[1].strip() for line in rec.splitlines()
              if "value_tape(value_tape_top + 1" in line and "=" in line]
    assert pushed == ["q(i)"], rec
