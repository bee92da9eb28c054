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
}


# F77: the grid's constants in COMMON, the flux written in each branch, a
# difference kept off zero by a conditional re-set (a fixture).
CASES["lax_wendroff_mc.f"] = (harness.FIXTURE_DIR / "f77_laxwendroff_mc.f").read_text()


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
