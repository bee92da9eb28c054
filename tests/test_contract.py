"""The calling contract, checked to the number with compiled drivers.

Module variables follow the rules of arguments (an independent's adjoint
is incremented even when the routine overwrites it; Jacobian rows all see
the state the routine was called in); a call through which a derivative
would flow is differentiated, declared passive, or an error naming it.
"""

import subprocess
import sys
import textwrap

import pytest

GLACIER = textwrap.dedent("""\
    module glacier
      implicit none
      real(8) :: albedo = 0.7d0
    contains
      subroutine melt_step(sw, melt)
        real(8), intent(in) :: sw
        real(8), intent(out) :: melt
        melt = (1.0d0 - albedo)*sw
        albedo = 3.0d0*albedo - 1.2d0   ! ageing: the independent is overwritten
      end subroutine melt_step
    end module glacier
    """)

GLACIER_DRIVER = textwrap.dedent("""\
    program check
      use glacier
      use glacier_ad
      implicit none
      real(8) :: sw, sw_adj, melt, melt_adj
      sw = 200.0d0
      sw_adj = 0.0d0
      melt_adj = 1.0d0
      albedo_adj = 100.0d0
      call melt_step_rev(sw, sw_adj, melt, melt_adj)
      ! d melt / d albedo_in = -sw = -200: incremented from the preset 100
      print '(3f12.4)', albedo_adj, sw_adj, albedo
    end program check
    """)

ROWS = textwrap.dedent("""\
    module counter
      implicit none
      real(8) :: gain = 5.0d0
    contains
      subroutine amplify(x, y)
        real(8), intent(in) :: x(2)
        real(8), intent(out) :: y(2)
        y = x*gain
        gain = gain + 1.0d0
      end subroutine amplify
    end module counter
    """)

ROWS_DRIVER = textwrap.dedent("""\
    program check
      use counter
      use counter_ad
      implicit none
      real(8) :: x(2), y(2), jac(2, 2)
      x = [1.0d0, 2.0d0]
      call amplify_jacobian(x, y, jac)
      print '(4f8.3)', jac
      print '(3f8.3)', gain, y
    end program check
    """)


def _adfort(args, cwd):
    return subprocess.run([sys.executable, "-m", "adfort"] + args, cwd=cwd,
                          capture_output=True, text=True)


def _build_and_run(tmp_path, source, driver, args):
    (tmp_path / "model.f90").write_text(source)
    (tmp_path / "driver.f90").write_text(driver)
    result = _adfort(["diff", "model.f90"] + args + ["-o", "model_ad.f90"], tmp_path)
    assert result.returncode == 0, result.stderr
    subprocess.run(["gfortran", "-fcheck=all", "model.f90", "model_ad.f90", "driver.f90",
                    "-o", "check"], cwd=tmp_path, check=True)
    return subprocess.run(["./check"], cwd=tmp_path, capture_output=True, text=True,
                          check=True).stdout.split()


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_overwritten_module_independent_is_incremented(tmp_path, schedule):
    out = _build_and_run(tmp_path, GLACIER, GLACIER_DRIVER,
                         ["--dep", "melt", "--indep", "sw,glacier::albedo",
                          "--schedule", schedule])
    albedo_adj, sw_adj, albedo = map(float, out)
    assert albedo_adj == pytest.approx(100.0 - 200.0)
    assert sw_adj == pytest.approx(0.3)
    assert albedo == pytest.approx(3 * 0.7 - 1.2)  # one call's worth


def test_jacobian_rows_see_the_same_module_state(tmp_path):
    out = list(map(float, _build_and_run(tmp_path, ROWS, ROWS_DRIVER,
                                         ["--dep", "y", "--indep", "x", "--jacobian"])))
    assert out[:4] == [5.0, 0.0, 0.0, 5.0]      # every row with gain = 5
    assert out[4:] == [6.0, 5.0, 10.0]          # state and outputs of one call


ROLES_DRIVER = textwrap.dedent("""\
    program check
      use counter
      use counter_ad
      implicit none
      real(8) :: x(2), y(2), jac(3, 3)
      x = [1.0d0, 2.0d0]
      call amplify_jacobian(x, y, jac)
      print '(9f8.3)', transpose(jac)
      print '(3f8.3)', gain, y
    end program check
    """)


def test_jacobian_with_module_variable_rows_and_columns(tmp_path):
    source = ROWS.replace("gain = gain + 1.0d0", "gain = gain + x(1)**2")
    out = list(map(float, _build_and_run(
        tmp_path, source, ROLES_DRIVER,
        ["--dep", "y,counter::gain", "--indep", "x,counter::gain", "--jacobian"])))
    # rows y(1), y(2), gain out; columns x(1), x(2), gain in
    assert out[:9] == [5.0, 0.0, 1.0, 0.0, 5.0, 2.0, 2.0, 0.0, 1.0]
    assert out[9:] == [6.0, 5.0, 10.0]


NESTED = textwrap.dedent("""\
    module humidity
      implicit none
      interface
        function esat(t) result(e)
          real(8), intent(in) :: t
          real(8) :: e
        end function esat
      end interface
    contains
      subroutine specific(t, q)
        real(8), intent(in) :: t
        real(8), intent(out) :: q
        q = 0.622d0*esat(t)/1.0d5
      end subroutine specific
      subroutine column(t, q)
        real(8), intent(in) :: t
        real(8), intent(out) :: q
        call specific(t, q)
        q = q + 0.01d0*t
        call log_value(q)
      end subroutine column
    end module humidity
    """)


def test_call_without_source_in_a_callee_is_an_error(tmp_path):
    (tmp_path / "h.f90").write_text(NESTED)
    result = _adfort(["diff", "h.f90", "--dep", "q", "--indep", "t",
                      "--routine", "column"], tmp_path)
    assert result.returncode == 1
    assert "h.f90:13: 'esat' has no source" in result.stderr, result.stderr
    assert "--passive esat" in result.stderr
    assert not list(tmp_path.glob("*_ad.f90"))


def test_passive_routines_by_option_and_directive(tmp_path):
    (tmp_path / "h.f90").write_text(NESTED)
    result = _adfort(["diff", "h.f90", "--dep", "q", "--indep", "t", "--routine",
                      "column", "--passive", "esat,log_value", "-o", "a.f90"], tmp_path)
    assert result.returncode == 0, result.stderr
    (tmp_path / "d.f90").write_text(
        "!$adfort passive esat\n" + NESTED.replace(
            "    call log_value(q)", "    !$adfort passive\n    call log_value(q)"))
    result = _adfort(["diff", "d.f90", "--dep", "q", "--indep", "t", "--routine",
                      "column", "-o", "b.f90"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "b.f90").read_text().count("subroutine") == \
        (tmp_path / "a.f90").read_text().count("subroutine")


def test_bare_passive_directive_needs_a_target(tmp_path):
    (tmp_path / "e.f90").write_text(NESTED.replace(
        "    q = 0.622d0", "    !$adfort passive\n    q = 0.622d0"))
    result = _adfort(["diff", "e.f90", "--dep", "q", "--indep", "t",
                      "--routine", "column"], tmp_path)
    assert result.returncode == 1
    assert "e.f90:13: '!$adfort passive' names no routine" in result.stderr


# r_rev takes r's arguments with r's intents: an intent(in) argument may be
# a constant in the caller (here a named constant, placed in read-only
# memory by gfortran), so r_rev and r_ret must never write it, even when an
# F77 helper without intents receives it and a joint reversal puts back
# what callees overwrote.
INPUTS = textwrap.dedent("""\
    module relax_mod
      implicit none
    contains
      subroutine smooth(n, c, w, y)
        integer n
        double precision c, w(n), y(n)
        integer k
        do k = 2, n
          y(k) = y(k) + c*w(k)*(y(k - 1) - y(k))
        end do
      end subroutine smooth
      subroutine relax(n, c, w, x, y)
        integer, intent(in) :: n
        double precision, intent(in) :: c, w(n), x(n)
        double precision, intent(inout) :: y(n)
        y = y + x**2
        call smooth(n, c, w, y)
        y = y*(1.0d0 + c*x)
      end subroutine relax
    end module relax_mod
    """)

INPUTS_DRIVER = textwrap.dedent("""\
    program check
      use relax_mod
      use relax_mod_ad
      implicit none
      double precision, parameter :: c = 0.3d0
      double precision, parameter :: w(3) = [1.0d0, 0.5d0, 2.0d0]
      double precision, parameter :: x(3) = [0.2d0, 0.4d0, 0.6d0]
      double precision :: x_adj(3), y(3), y_adj(3)
      x_adj = 0.0d0
      y = [1.0d0, 2.0d0, 3.0d0]
      y_adj = 1.0d0
      call relax_rev(3, c, w, x, x_adj, y, y_adj)
      print '(3es24.16)', x_adj
    end program check
    """)


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_reversal_never_writes_intent_in_arguments(tmp_path, schedule):
    import harness
    out = list(map(float, _build_and_run(
        tmp_path, INPUTS, INPUTS_DRIVER,
        ["--dep", "y", "--indep", "x,y", "--routine", "relax",
         "--schedule", schedule])))
    assert all(v != 0.0 for v in out), out
    sig = harness.parse_signature(tmp_path / "model.f90", "relax")
    assert {a.name for a in sig.args if a.intent == "in"} == {"n", "c", "w", "x"}
    assert harness.rev_writes_intent_in(sig, tmp_path / "model_ad.f90") == []
    strict = subprocess.run(["gfortran", "-c", *harness.STRICT_FFLAGS, "model_ad.f90"],
                            cwd=tmp_path, capture_output=True, text=True)
    assert strict.returncode == 0, strict.stderr
