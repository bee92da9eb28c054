"""Gaps met in the second survey of unedited model code (SPEEDY, ecRad,
WAVEWATCH III, NEMO, GFDL/FV3, CICE, Noah-MP, MINPACK, LINPACK, ODE and
optimisation libraries): each case is a small source with ``adfort:``
metadata checked against finite differences under both schedules, or,
for messages, a command-line check."""

import shutil

import pytest

import harness

needs_gfortran = pytest.mark.skipif(shutil.which("gfortran") is None, reason="no gfortran")
SCHEDULES = ["split", "joint"]


CASES = {
    # SPEEDY phy_lscond.f: COMMON /FSIGLT/ SIG(NLEV) with
    # PARAMETER (NLEV=KX) and KX a PARAMETER of an included header: the
    # generated COMMON layout module declared NLEV but not KX (internal
    # error: 'kx' neither declared nor imported).
    "common_bound_parameter_chain.f": """\
        C adfort: routine=lsc dep=pr indep=qa
        C adfort: init pr=0:1 qa=0.5:1.5
        C adfort: fflags=-fdefault-real-8 -fdefault-double-8
              BLOCK DATA SIGDAT
              PARAMETER ( IX = 3, KX = 4 )
              PARAMETER ( NLEV=KX, NGP=IX )
              COMMON /FSIGLT/ SIG(NLEV), DSIG(NLEV)
              DATA SIG / 0.1, 0.4, 0.7, 0.95 /
              DATA DSIG / 0.2, 0.3, 0.3, 0.2 /
              END
              SUBROUTINE LSC (QA,PR)
              PARAMETER ( IX = 3, KX = 4 )
              PARAMETER ( NLEV=KX, NGP=IX )
              COMMON /FSIGLT/ SIG(NLEV), DSIG(NLEV)
              REAL QA(NGP,NLEV), PR(NGP)
              DO K=1,NLEV
                DO J=1,NGP
                  PR(J) = PR(J) + SIG(K)*DSIG(K)*QA(J,K)**2
                ENDDO
              ENDDO
              END
        """,
}


@needs_gfortran
@pytest.mark.parametrize("schedule", SCHEDULES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_round2_idiom_matches_finite_differences(tmp_path, name, schedule):
    harness.check_source(tmp_path, name, CASES[name], schedule)
