"""WHERE constructs taken element by element through all their clauses in
one loop (adfort/where.py, ``_Lowering.fused``) when that is the same
program, and assignment by assignment otherwise.  Each case is checked
against finite differences under both schedules, with r_rev's primal
results compared to r's as gfortran compiles it (the meaning of WHERE);
the text checks say which lowering was taken."""

import re
import shutil

import pytest

import harness

needs_gfortran = pytest.mark.skipif(shutil.which("gfortran") is None, reason="no gfortran")

# (source, whether the WHERE is taken in one loop without mask arrays)
CASES = {
    # Clipping and a three-clause construct whose masks read the array the
    # clauses assign, at the element assigned.
    "clip_clauses.f90": ("""\
        ! adfort: routine=relax dep=q indep=q,kap
        ! adfort: init n=17 nt=3 q=-0.3:1.0 kap=0.05:0.2
        module clip_clauses
          implicit none
          integer, parameter :: wp = kind(1.0d0)
        contains
          subroutine relax(n, nt, kap, q)
            integer, intent(in) :: n, nt
            real(wp), intent(in) :: kap(n)
            real(wp), intent(inout) :: q(n)
            real(wp) :: tend(n)
            integer :: it
            do it = 1, nt
              tend = 0.0_wp
              tend(2:n-1) = kap(2:n-1)*(q(1:n-2) - 2.0_wp*q(2:n-1) + q(3:n))
              where (q < 0.0_wp) q = 0.1_wp*q
              where (q + tend < 0.0_wp)
                tend = -0.5_wp*q
                q = q + tend
              elsewhere (q > 0.6_wp)
                tend = tend*exp(-q)
                q = q + tend + 0.01_wp*q**2
              elsewhere
                q = 0.99_wp*q + tend
              end where
            end do
          end subroutine relax
        end module clip_clauses
        """, True),
    # Clauses assigning a column of a level array (``cf(:, k)``, read as
    # ``cf(LBOUND(cf, 1) + …, k)``: the inquiry reads no element) chosen by
    # masks of a local array the level loop sets again at each level.
    "level_sections.f90": ("""\
        ! adfort: routine=cover dep=cf indep=q,qs
        ! adfort: init ncol=6 nlev=3 q=0.5:1.5 qs=1.0:1.2
        module level_sections
          implicit none
          integer, parameter :: wp = kind(1.0d0)
        contains
          subroutine cover(ncol, nlev, q, qs, cf)
            integer, intent(in) :: ncol, nlev
            real(wp), intent(in) :: q(ncol, nlev), qs(ncol, nlev)
            real(wp), intent(out) :: cf(ncol, nlev)
            real(wp) :: rh(ncol)
            integer :: k
            do k = 1, nlev
              rh = q(:, k)/qs(:, k)
              where (rh >= 1.0_wp)
                cf(:, k) = 1.0_wp
              elsewhere (rh > 0.8_wp)
                cf(:, k) = ((rh - 0.8_wp)/0.2_wp)**2
              elsewhere
                cf(:, k) = 0.0_wp
              end where
              where (cf(:, k) > 0.0_wp) cf(:, k) = cf(:, k)*(1.0_wp + 0.1_wp*rh)
            end do
          end subroutine cover
        end module level_sections
        """, True),
    # The second assignment reads the first one's array at other elements:
    # the first must be complete before the second starts.
    "shifted_reads.f90": ("""\
        ! adfort: routine=shift dep=a,b indep=a,b,x
        ! adfort: init n=12 a=0.5:1.5 b=0.5:1.5 x=-1:1
        module shifted_reads
          implicit none
          integer, parameter :: wp = kind(1.0d0)
        contains
          subroutine shift(n, x, a, b)
            integer, intent(in) :: n
            real(wp), intent(in) :: x(n)
            real(wp), intent(inout) :: a(n), b(n)
            where (x(2:n) > 0.0_wp)
              a(2:n) = a(2:n) + b(1:n-1)**2
              b(2:n) = b(2:n)*a(1:n-1)
            elsewhere
              b(2:n) = sqrt(a(2:n) + b(2:n))
            end where
          end subroutine shift
        end module shifted_reads
        """, False),
    # A mask reading, at another element, an array an earlier clause
    # assigns: the ELSEWHERE's mask sees the first clause's values.
    "mask_reads_other_element.f90": ("""\
        ! adfort: routine=smooth dep=h indep=h
        ! adfort: init n=15 h=-1:1
        module mask_reads_other_element
          implicit none
          integer, parameter :: wp = kind(1.0d0)
        contains
          subroutine smooth(n, h)
            integer, intent(in) :: n
            real(wp), intent(inout) :: h(n)
            where (h(2:n) > 0.2_wp)
              h(2:n) = 0.5_wp*h(2:n)
            elsewhere (h(1:n-1) < 0.0_wp)
              h(2:n) = h(2:n) - 0.1_wp*h(1:n-1)**2
            end where
          end subroutine smooth
        end module mask_reads_other_element
        """, False),
    # A mask of a shifted array (the upwind neighbour on a periodic ring)
    # and a kind conversion of an integer in the clause: REAL(NINT(x), wp)
    # taken element by element (the WHERE was refused).
    "upwind_layers.f90": ("""\
        ! adfort: routine=accrete dep=h indep=h,snow
        ! adfort: init n=11 h=0.1:1.9 snow=0.01:0.05
        module upwind_layers
          implicit none
          integer, parameter :: wp = kind(1.0d0)
        contains
          subroutine accrete(n, snow, h)
            integer, intent(in) :: n
            real(wp), intent(in) :: snow(n)
            real(wp), intent(inout) :: h(n)
            where (cshift(h, -1) > 1.0_wp)
              h = h + snow*(1.0_wp + 0.1_wp*real(nint(3.0_wp*h), wp))*h
            elsewhere
              h = h + snow*sqrt(h)
            end where
          end subroutine accrete
        end module upwind_layers
        """, False),
}


@needs_gfortran
@pytest.mark.parametrize("schedule", ["joint", "split"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_where_gives_the_gradient_and_results(tmp_path, name, schedule):
    harness.check_source(tmp_path, name, CASES[name][0], schedule)


@pytest.mark.parametrize("name", sorted(CASES))
def test_which_where_is_fused(tmp_path, name):
    text, fused = CASES[name]
    generated = harness.differentiate_text(tmp_path, name, text)
    # (with r_rec_body when r_rec hands its automatic arrays a buffer)
    rec = harness.routine_source(generated, f"{harness.parse_metadata(tmp_path / name).routine}_rec")
    assert ("where_mask" not in rec and "where_pending" not in rec) == fused, rec
    if fused:
        # One loop per WHERE, each element taken through its clauses.
        assert len(re.findall(r"do where_index", rec)) == 2, rec


def test_masks_of_inputs_are_tested_again(tmp_path):
    """An ice/open-water WHERE whose mask reads an input nothing changes:
    the reverse sweep tests the mask again, so the recording pushes no
    branch bits (they were one per element and clause)."""
    fixture = harness.FIXTURE_DIR / "sea_ice_where.f90"
    generated = harness.differentiate_text(tmp_path, fixture.name, fixture.read_text())
    rec = harness.routine_source(generated, "ice_surface_rec")
    assert "bits_push" not in rec and "where_mask" not in rec, rec
    assert len(re.findall(r"do where_index", rec)) == 2, rec
