"""``adfort check``: the bundled example and fixtures pass; broken adjoints,
tangents and contracts fail naming the check; bad input exits 1 with
``file:line``; ``--plot`` draws a real figure."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from adfort.check.report import TAYLOR_RATE, rates

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fortran_fixtures"
CALLS = FIXTURES / "calls"
SEAWATER = ROOT / "examples" / "seawater.f90"


def adfort(args, cwd):
    """Run ``python -m adfort`` (this checkout's, see conftest)."""
    return subprocess.run([sys.executable, "-m", "adfort"] + [str(a) for a in args],
                          cwd=str(cwd), capture_output=True, text=True, timeout=600)


def assert_passes(result):
    assert result.returncode == 0, result.stdout + result.stderr
    assert "adfort check: all checks passed" in result.stdout
    assert "FAIL" not in result.stdout
    assert "Traceback" not in result.stderr


# (name, directory, arguments): the bundled example and fixtures of varied
# kinds.  Ranges follow each fixture's own metadata.
CASES = [
    ("seawater example", ROOT,
     [SEAWATER, "--dep", "rho", "--indep", "temp,salt"]),
    ("F77 fixed form, arrays from --size", FIXTURES,
     ["lorenz96.f", "--dep", "x", "--indep", "x,forc", "--size", "n=40,nt=20",
      "--range", "x=-2:8", "--range", "forc=7.5:8.5,dt=0.01"]),
    ("assumed-shape arrays sized by a --size name", FIXTURES,
     ["shortwave_level_albedo.f90", "--routine", "shortwave_levels", "--dep", "heat,flux",
      "--indep", "albedo,flux", "--size", "nlev=5,ncol=4", "--size", "albedo=ncol,nlev",
      "--size", "flux=ncol,heat=nlev", "--range", "albedo=0.05:0.4,flux=300:900"]),
    ("module variables, joint links", CALLS / "box_model_state",
     ["ocean_boxes.f90", "--routine", "run_boxes",
      "--dep", "ocean_boxes::heat_uptake,ocean_boxes::temp",
      "--indep", "forcing,ocean_boxes::kdiff,ocean_boxes::temp", "--size", "nt=15",
      "--range", "dt=0.5,forcing=3:4.5,ocean_boxes::kdiff=0.5:0.9",
      "--range", "ocean_boxes::temp=0.2:1.0", "--schedule", "split",
      "--link", "run_boxes:exchange=joint"]),
    ("COMMON blocks in F77, a member as a callee names it", CALLS / "lorenz_common_blocks",
     ["lorenz.f", "--routine", "run", "--dep", "cost,/state/zs", "--indep", "s,r,b,x0",
      "--size", "nt=12", "--range", "dt=0.01,s=9.5:10.5,r=27:29,b=2.5:2.8,x0=0.5:2",
      "--schedule", "joint"]),
    ("-I modules", CALLS / "column_eos_search_path",
     ["column_energy.f90", "-I", "src", "--dep", "pe,strat", "--indep", "temp,salt",
      "--size", "nz=12", "--range", "temp=4:20,salt=34:36,dz=20"]),
    ("--adjoint-lib with the library compiled", CALLS / "sea_ice_blackbox",
     ["sea_ice.f90", "--routine", "ice_growth", "--dep", "hmean", "--indep", "h,ta",
      "--adjoint-lib", "bulk_flux_library_ad.f90", "--compile", "bulk_flux_library.f90",
      "--size", "n=8,nt=15", "--range", "dt=1,h=0.4:1.5,ta=240:258,wind=4:8"]),
]


@pytest.mark.parametrize("name,cwd,args", CASES, ids=[c[0] for c in CASES])
def test_check_passes(name, cwd, args):
    result = adfort(["check"] + args, cwd)
    assert_passes(result)
    out = result.stdout
    for check in ("dot-product test", "Taylor test", "primal results of"):
        assert f"PASS  {check}" in out, out
    if "--adjoint-lib" in args:
        # no tangent of a routine without source: finite differences, said so
        assert "no tangent:" in out and "central differences" in out, out
    else:
        assert "(tangent r_fwd)" in out, out
    # progress on standard error
    assert "adfort check: compiling" in result.stderr
    assert "adfort check: running" in result.stderr


def test_seawater_report_in_full(tmp_path):
    result = adfort(["check", SEAWATER, "--dep", "rho", "--indep", "temp,salt"], tmp_path)
    assert_passes(result)
    out = result.stdout
    for check in ("independent adjoints incremented", "intent(in) arguments unchanged",
                  "intent(out) dependents' adjoints zeroed"):
        assert f"PASS  {check}" in out
    # six halvings of h, and the observed rate
    taylor = out.split("PASS  Taylor test")[1].split("PASS")[0]
    assert len(re.findall(r"^\s+\d\.\d{3}e-0\d\s", taylor, re.M)) == 6
    assert re.search(r"rate 2\.0\d at the smallest resolved h", taylor)
    # J·ẋ from the generated tangent: adjoint and tangent agree to round-off
    assert "(tangent r_fwd)" in out and "PASS  Taylor test (vector form)" in out
    rel = float(re.search(r"relative difference (\S+)", out).group(1))
    assert rel < 1e-12


def test_default_real_fortran77(tmp_path):
    (tmp_path / "smooth.f").write_text(
        "      SUBROUTINE SMOOTH(N, X, Y)\n"
        "      INTEGER N, I\n"
        "      REAL X(N), Y(N)\n"
        "      DO 10 I = 2, N - 1\n"
        "        Y(I) = 0.25*X(I-1) + 0.5*X(I) + 0.25*X(I+1)**2\n"
        "   10 CONTINUE\n"
        "      Y(1) = X(1)\n"
        "      Y(N) = X(N)\n"
        "      END\n")
    result = adfort(["check", "smooth.f", "--dep", "y", "--indep", "x", "--size", "n=9"],
                    tmp_path)
    assert_passes(result)
    assert "-fdefault-real-8" in result.stdout


def test_values_with_three_digit_exponents(tmp_path):
    """A model whose values pass 1e99 (a diverging run, a cost in SI
    units of energy): the driver's numbers must still be read back, not
    end in an internal error on Fortran's ``1.0+132``."""
    (tmp_path / "blowup.f90").write_text(
        "subroutine blowup(n, x, e)\n"
        "  integer, intent(in) :: n\n"
        "  double precision, intent(in) :: x(n)\n"
        "  double precision, intent(out) :: e\n"
        "  e = sum(x**6)\n"
        "end subroutine blowup\n")
    result = adfort(["check", "blowup.f90", "--dep", "e", "--indep", "x", "--size", "n=5",
                     "--range", "x=1e20:2e20"], tmp_path)
    assert_passes(result)


FUNCTION = """\
module energy_mod
  implicit none
contains
  function energy(n, u) result(e)
    integer, intent(in) :: n
    double precision, intent(in) :: u(n)
    double precision :: e
    e = 0.5d0*sum(u**2) + sum(exp(-u))
  end function energy
end module energy_mod
"""


def test_function(tmp_path):
    (tmp_path / "energy.f90").write_text(FUNCTION)
    assert_passes(adfort(["check", "energy.f90", "--dep", "e", "--indep", "u",
                          "--size", "n=7"], tmp_path))


# -- broken adjoints -------------------------------------------------------

def seawater_adjoint(tmp_path):
    result = adfort(["diff", SEAWATER, "--dep", "rho", "--indep", "temp,salt", "-o",
                     "sw_ad.f90"], tmp_path)
    assert result.returncode == 0, result.stderr
    return (tmp_path / "sw_ad.f90").read_text()


def corrupt(text, old, new):
    assert text.count(old) == 1, old
    return text.replace(old, new)


def check_seawater(tmp_path, adjoint_text, *extra):
    (tmp_path / "broken_ad.f90").write_text(adjoint_text)
    return adfort(["check", SEAWATER, "--dep", "rho", "--indep", "temp,salt", "--adjoint",
                   "broken_ad.f90"] + list(extra), tmp_path)


def last_line(result):
    return result.stdout.strip().splitlines()[-1]


def test_wrong_partial_fails_dot_and_taylor(tmp_path):
    text = corrupt(seawater_adjoint(tmp_path), "rho0_adj = rho_adj *",
                   "rho0_adj = 1.001_wp * rho_adj *")
    result = check_seawater(tmp_path, text)
    assert result.returncode == 3, result.stdout + result.stderr
    assert "FAIL  dot-product test" in result.stdout
    assert "FAIL  Taylor test" in result.stdout
    assert last_line(result) == "adfort check: FAILED: dot-product test, Taylor test"
    # the Taylor remainders fall as h, not h**2
    assert re.search(r"rate 1\.0\d at the smallest resolved h", result.stdout)


def test_overwritten_adjoint_fails_increment(tmp_path):
    text = corrupt(seawater_adjoint(tmp_path), "temp_adj = temp_adj + t_adj",
                   "temp_adj = t_adj")
    result = check_seawater(tmp_path, text)
    assert result.returncode == 3
    assert "PASS  dot-product test" in result.stdout
    assert "FAIL  independent adjoints incremented" in result.stdout
    assert "not incremented: temp" in result.stdout
    assert last_line(result) == "adfort check: FAILED: independent adjoints incremented"


def test_changed_primal_fails_contract(tmp_path):
    end = "    rho_adj = 0.0_wp\n\n  end subroutine density_rev"
    text = corrupt(seawater_adjoint(tmp_path), end,
                   end.replace("\n\n", "\n    rho = rho + 1.0e-6_wp\n\n"))
    result = check_seawater(tmp_path, text)
    assert result.returncode == 3
    assert "FAIL  primal results of density_rev" in result.stdout
    assert "differ: rho" in result.stdout


def test_adjoint_that_does_not_compile(tmp_path):
    text = corrupt(seawater_adjoint(tmp_path), "temp_adj = temp_adj + t_adj",
                   "temp_adj = temp_adj + t_adj +")
    result = check_seawater(tmp_path, text)
    assert result.returncode == 3
    assert "FAIL  compile" in result.stdout
    assert "the adjoint does not compile with gfortran" in result.stdout
    assert "Error" in result.stdout
    assert last_line(result) == "adfort check: FAILED: compile"


# -- a hand-written tangent given with --tangent ---------------------------

BLEND = """\
module blend_mod
  implicit none
  integer, parameter :: wp = kind(1.0d0)
  real(wp) :: gain = 1.5_wp
contains
  subroutine blend(n, x, a, y)
    integer, intent(in) :: n
    real(wp), intent(in) :: x(n), a
    real(wp), intent(out) :: y(n)
    y = gain*a*x**2 + sin(x)
  end subroutine blend
end module blend_mod
"""

BLEND_FWD = """\
module blend_mod_fwd
  use blend_mod
  implicit none
  real(wp) :: gain_d = 0.0_wp
contains
  subroutine blend_fwd(n, x, x_d, a, a_d, y, y_d)
    integer, intent(in) :: n
    real(wp), intent(in) :: x(n), x_d(n), a, a_d
    real(wp), intent(out) :: y(n), y_d(n)
    y_d = gain_d*a*x**2 + gain*a_d*x**2 + gain*a*2.0_wp*x*x_d + cos(x)*x_d
    y = gain*a*x**2 + sin(x)
  end subroutine blend_fwd
end module blend_mod_fwd
"""


def check_blend(tmp_path, tangent_text, *extra):
    (tmp_path / "blend.f90").write_text(BLEND)
    (tmp_path / "blend_fwd.f90").write_text(tangent_text)
    return adfort(["check", "blend.f90", "--dep", "y", "--indep", "x,a,blend_mod::gain",
                   "--size", "n=20", "--tangent", "blend_fwd.f90"] + list(extra), tmp_path)


def test_tangent_against_adjoint(tmp_path):
    result = check_blend(tmp_path, BLEND_FWD, "--plot", "taylor.png")
    assert_passes(result)
    out = result.stdout
    assert "(tangent r_fwd)" in out
    rel = float(re.search(r"relative difference (\S+)", out).group(1))
    assert rel <= 1e-12
    assert "PASS  Taylor test (vector form)" in out
    assert "PASS  primal results of blend_fwd" in out
    assert_real_plot(tmp_path / "taylor.png")


def test_wrong_tangent_fails(tmp_path):
    result = check_blend(tmp_path, BLEND_FWD.replace("cos(x)*x_d", "cos(x)*x_d*1.01_wp"))
    assert result.returncode == 3
    assert "FAIL  dot-product test" in result.stdout
    assert "FAIL  Taylor test (vector form)" in result.stdout


# -- the plot ----------------------------------------------------------------

def assert_real_plot(path):
    import matplotlib.image as mpimg
    assert path.is_file() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    image = mpimg.imread(str(path))
    height, width = image.shape[:2]
    assert width >= 400 and height >= 300
    rgb = (image[..., :3] * 255).round().astype(int).reshape(-1, 3)
    assert rgb.std() > 10                         # not blank
    colours = {tuple(c) for c in rgb[::7]}
    assert len(colours) > 20                      # lines, text, markers
    # a coloured curve: pixels far from grey
    spread = rgb.max(axis=1) - rgb.min(axis=1)
    assert (spread > 100).sum() > 200


def test_plot(tmp_path):
    result = adfort(["check", SEAWATER, "--dep", "rho", "--indep", "temp,salt", "--plot",
                     "taylor.png", "--keep", "kept"], tmp_path)
    assert_passes(result)
    assert_real_plot(tmp_path / "taylor.png")
    # --keep leaves the check program for users to read
    kept = tmp_path / "kept"
    assert (kept / "check_driver.f90").is_file() and (kept / "adjoint.f90").is_file()
    assert "density_rev" in (kept / "check_driver.f90").read_text()


# -- bad input ---------------------------------------------------------------

@pytest.mark.parametrize("args,message", [
    (["lorenz96.f", "--dep", "x", "--indep", "x,forc", "--size", "nt=20"],
     r"lorenz96\.f:\d+: integer argument 'n' gives array bounds and needs a value: "
     r"give it with --size n=100"),
    (["wave_dispersion.f90", "--dep", "cg", "--indep", "k", "--size", "depth=40"],
     r"--size depth: 'depth' is real: give its values with --range depth=LO:HI"),
    (["vertical_mixing_closure.f90", "--dep", "u", "--indep", "k0", "--size", "nz=25,nt=15"],
     r"character argument 'closure' needs a value: give it with --size closure=TEXT"),
    (["shapiro_filter.f90", "--dep", "y", "--indep", "x,strength", "--size", "npass=4"],
     r"shapiro_filter\.f90:\d+: argument 'x' is assumed-shape or assumed-size: give its "
     r"extents with --size x=100"),
    (["lorenz96.f", "--dep", "x", "--indep", "x,forc", "--size", "n=40,nt=20,nx=3"],
     r"lorenz96\.f:\d+: --size nx: no integer argument"),
    (["lorenz96.f", "--dep", "x", "--indep", "x,forc", "--size", "n=40,nt=20",
      "--range", "forc=8:7"], r"--range forc=8:7: the lower end is above the upper"),
    # a time step too long for the default range: Lorenz-96 blows up
    (["lorenz96.f", "--dep", "x", "--indep", "x,forc", "--size", "n=40,nt=20"],
     r"lorenz96\.f:\d+: 'L96' gives NaN or Inf at the random base point \(in x\)"),
    (["lorenz96.f", "--dep", "x", "--indep", "x,forcing", "--size", "n=40,nt=20"],
     r"forcing"),
])
def test_bad_input(args, message):
    result = adfort(["check"] + args, FIXTURES)
    assert result.returncode == 1, result.stdout + result.stderr
    assert re.search(message, result.stderr), result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr


def test_original_that_does_not_compile(tmp_path):
    source = SEAWATER.read_text().replace("rho = rho0/(1.0_wp - pb/k)",
                                          "rho = rho0/(1.0_wp - pb/k) + undeclared_thing")
    (tmp_path / "sw.f90").write_text(source)
    result = adfort(["check", "sw.f90", "--dep", "rho", "--indep", "temp,salt"], tmp_path)
    assert result.returncode == 1
    assert "adfort: error" in result.stderr and "Traceback" not in result.stderr


def test_missing_file(tmp_path):
    result = adfort(["check", "nowhere.f90", "--dep", "y", "--indep", "x"], tmp_path)
    assert result.returncode == 1
    assert "nowhere.f90" in result.stderr


# -- the Taylor rule -----------------------------------------------------

def test_taylor_rule_is_robust_to_round_off():
    hs = [1e-2 / 2 ** k for k in range(6)]
    noise = [1e-12] * 6
    # h**2 falling into round-off: the rate of the resolved pairs counts
    second = [max(3.0 * h * h, 2e-12) for h in hs]
    _, ok, reason = rates(hs, [1e-4, 2.5e-5, 6.25e-6, 1.5625e-6, 4e-12, 2e-12], noise)
    assert ok and "2.00" in reason
    assert rates(hs, second, noise)[1]
    # an O(h) remainder (a wrong gradient) fails
    _, ok, reason = rates(hs, [1e-3 * h + 1e-2 * h * h for h in hs], noise)
    assert not ok and float(reason.split()[1]) < TAYLOR_RATE
    # every remainder at round-off: f linear along the direction
    _, ok, reason = rates(hs, [3e-12, 1e-12, 4e-12, 2e-12, 1e-12, 5e-12], noise)
    assert ok and "round-off" in reason
    # NaN fails
    assert not rates(hs, [float("nan")] * 6, noise)[1]


def test_check_help_lists_diff_options():
    result = subprocess.run([sys.executable, "-m", "adfort", "check", "--help"],
                            capture_output=True, text=True)
    assert result.returncode == 0
    for option in ("--adjoint-lib", "--link", "-I", "-D", "--free-form", "--size",
                   "--range", "--plot", "--keep", "--adjoint", "--schedule"):
        assert option in result.stdout


def test_report_on_an_ascii_terminal(tmp_path):
    import os
    env = dict(os.environ, PYTHONIOENCODING="ascii")
    result = subprocess.run([sys.executable, "-m", "adfort", "check", str(SEAWATER), "--dep",
                             "rho", "--indep", "temp,salt"], cwd=str(tmp_path), env=env,
                            capture_output=True, text=True, encoding="ascii")
    assert result.returncode == 0, result.stderr
    assert "<ybar, J xdot>" in result.stdout and "compiling..." in result.stderr
