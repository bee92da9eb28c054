"""Several routines of one file in one run (``--routine a:y/x --routine
b:z/w``): one output file holding every adjoint, shared callees and tapes
once, each gradient right against central finite differences."""

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

MODEL = """\
    module column
      implicit none
      integer, parameter :: wp = kind(1.0d0)
      real(wp) :: kappa = 0.3_wp
    contains
      subroutine smooth(n, t, r)
        integer, intent(in) :: n
        real(wp), intent(inout) :: t(n)
        real(wp), intent(in) :: r
        integer :: k
        do k = 2, n - 1
          t(k) = t(k) + kappa*r*(t(k - 1) - 2*t(k) + t(k + 1))
        end do
      end subroutine smooth
      subroutine step(n, t, r, q)
        integer, intent(in) :: n
        real(wp), intent(inout) :: t(n)
        real(wp), intent(in) :: r
        real(wp), intent(out) :: q
        call smooth(n, t, r)
        q = sum(t**2)
      end subroutine step
      subroutine cost(n, t, r, j)
        integer, intent(in) :: n
        real(wp), intent(in) :: t(n)
        real(wp), intent(in) :: r
        real(wp), intent(out) :: j
        real(wp) :: w(n)
        w = t
        call smooth(n, w, r)
        j = sum(exp(-w))
      end subroutine cost
    end module column
    """

DRIVER = """\
    program check
      use column
      use column_ad
      implicit none
      integer, parameter :: n = 7
      real(wp) :: t(n), td(n), tb(n), r, rb, q, qb, j, jb, tp(n), tm(n), qp, qm, h
      integer :: k
      h = 1.0e-6_wp
      do k = 1, n
        t(k) = 1.0_wp + 0.1_wp*k*k
        td(k) = cos(1.0_wp*k)
      end do
      r = 0.8_wp
      ! step: q(t), seed qb = 1, t_adj preset (incremented)
      tb = 0.5_wp
      rb = 0.0_wp
      qb = 1.0_wp
      tp = t
      call step_rev(n, tp, tb, r, rb, q, qb)
      tp = t + h*td
      call step(n, tp, r + h, qp)
      tm = t - h*td
      call step(n, tm, r - h, qm)
      print '(a, 2es24.15)', 'step', sum((tb - 0.5_wp)*td) + rb, (qp - qm)/(2*h)
      ! cost: j(t, r) along (td, 1)
      tb = 0.0_wp
      rb = 0.0_wp
      jb = 1.0_wp
      call cost_rev(n, t, tb, r, rb, j, jb)
      call cost(n, t + h*td, r + h, qp)
      call cost(n, t - h*td, r - h, qm)
      print '(a, 2es24.15)', 'cost', sum(tb*td) + rb, (qp - qm)/(2*h)
    end program check
    """


def run(args, cwd):
    return subprocess.run([sys.executable, "-m", "adfort"] + args, cwd=cwd,
                          capture_output=True, text=True)


def check_gradients(directory, sources, rows=2):
    """Compile `sources` (the last a driver printing, per head, its name,
    <x_adj, dx> and the central difference) and compare each row."""
    build = subprocess.run(["gfortran", "-std=f2008", "-fcheck=all", "-o", "check"] + sources,
                           cwd=directory, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    out = subprocess.run(["./check"], cwd=directory, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    found = [line.split() for line in out.stdout.splitlines()]
    assert len(found) == rows, out.stdout
    for name, adjoint, fd in found:
        assert abs(float(adjoint) - float(fd)) <= 1e-6*abs(float(fd)), (name, adjoint, fd)


@pytest.mark.skipif(shutil.which("gfortran") is None, reason="needs gfortran")
@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_two_heads_in_one_file_give_both_gradients(tmp_path, schedule):
    (tmp_path / "model.f90").write_text(textwrap.dedent(MODEL))
    (tmp_path / "check.f90").write_text(textwrap.dedent(DRIVER))
    done = run(["diff", "model.f90", "--routine", "step:q/t,r", "--routine", "cost:j/t,r",
                "--schedule", schedule, "-o", "model_ad.f90"], tmp_path)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "model_ad.f90").read_text()
    assert text.count("\nmodule column_ad\n") == 1
    # smooth's motions, needed by both, are there once.
    for routine in ("step_rev", "cost_rev", "smooth_rec"):
        assert text.count(f"subroutine {routine}(") == 1
    check_gradients(tmp_path, ["model.f90", "model_ad.f90", "check.f90"])


# step needs smooth with r passive, cost with r active (and step's motions
# as a callee of run differ from its own as a head: its reversal zeroes
# q_adj).
OTHER_ACTIVITY = """\
      subroutine run(n, t, r, total)
        integer, intent(in) :: n
        real(wp), intent(inout) :: t(n)
        real(wp), intent(in) :: r
        real(wp), intent(out) :: total
        real(wp) :: q
        integer :: it
        total = 0
        do it = 1, 3
          call step(n, t, r, q)
          total = total + q*it
        end do
      end subroutine run
"""

DRIVER_VARIANTS = """\
    program check
      use column
      use column_ad
      implicit none
      integer, parameter :: n = 7
      real(wp) :: t(n), td(n), tb(n), tp(n), tm(n), r, rb, q, qb, j, jb, qp, qm, h
      integer :: k
      h = 1.0e-6_wp
      do k = 1, n
        t(k) = 1.0_wp + 0.1_wp*k*k
        td(k) = cos(1.0_wp*k)
      end do
      r = 0.8_wp
      ! step: q(t)
      tb = 0.0_wp
      qb = 1.0_wp
      tp = t
      call step_rev(n, tp, tb, r, q, qb)
      tp = t + h*td
      call step(n, tp, r, qp)
      tm = t - h*td
      call step(n, tm, r, qm)
      print '(a, 2es24.15)', 'step', sum(tb*td), (qp - qm)/(2*h)
      ! cost: j(r)
      rb = 0.0_wp
      jb = 1.0_wp
      call cost_rev(n, t, r, rb, j, jb)
      call cost(n, t, r + h, qp)
      call cost(n, t, r - h, qm)
      print '(a, 2es24.15)', 'cost', rb, (qp - qm)/(2*h)
      ! run: total(t, r)
      tb = 0.0_wp
      rb = 0.0_wp
      jb = 1.0_wp
      tp = t
      call run_rev(n, tp, tb, r, rb, j, jb)
      tp = t + h*td
      call run(n, tp, r + h, qp)
      tm = t - h*td
      call run(n, tm, r - h, qm)
      print '(a, 2es24.15)', 'run', sum(tb*td) + rb, (qp - qm)/(2*h)
    end program check
    """


@pytest.mark.skipif(shutil.which("gfortran") is None, reason="needs gfortran")
@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_heads_needing_a_routine_differently_each_get_theirs(tmp_path, schedule):
    """step needs smooth with r passive, cost and run with r active; run
    calls step, whose motions as its callee are not step's own as a head.
    Each head calls its variant (named after it); every gradient is right."""
    model = textwrap.dedent(MODEL).replace(
        "end module column", textwrap.dedent(OTHER_ACTIVITY) + "end module column")
    (tmp_path / "model.f90").write_text(model)
    (tmp_path / "check.f90").write_text(textwrap.dedent(DRIVER_VARIANTS))
    done = run(["diff", "model.f90", "--routine", "step:q/t", "--routine", "cost:j/r",
                "--routine", "run:total/t,r", "--schedule", schedule,
                "-o", "model_ad.f90"], tmp_path)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "model_ad.f90").read_text()
    assert text.count("subroutine smooth_rev(") == 1
    assert "subroutine smooth_rev_cost(" in text or "subroutine smooth_ret_cost(" in text
    for routine in ("step_rev", "cost_rev", "run_rev"):
        assert text.count(f"subroutine {routine}(") == 1
    check_gradients(tmp_path, ["model.f90", "model_ad.f90", "check.f90"], rows=3)
    again = run(["diff", "model.f90", "--routine", "step:q/t", "--routine", "cost:j/r",
                 "--routine", "run:total/t,r", "--schedule", schedule, "-o", "-"], tmp_path)
    assert again.stdout == text    # deterministic


@pytest.mark.parametrize("value, message", [
    ("step:q", "NAME:DEPS/INDEPS"),
    (":q/t", "NAME:DEPS/INDEPS"),
    ("step:q/", "no independent variable of 'step'"),
])
def test_bad_head_values_are_clear_errors(tmp_path, value, message):
    (tmp_path / "model.f90").write_text(textwrap.dedent(MODEL))
    done = run(["diff", "model.f90", "--routine", value, "--routine", "cost:j/t",
                "-o", "model_ad.f90"], tmp_path)
    assert done.returncode == 1
    assert message in done.stderr, done.stderr
    assert not (tmp_path / "model_ad.f90").exists()


def test_common_members_keep_their_slashes():
    from adfort.cli import _head
    assert _head("f:/state/x,y//state/u", [], []) == ("f", ["/state/x", "y"], ["/state/u"])
    assert _head("f:m::g/x", [], []) == ("f", ["m::g"], ["x"])
    assert _head("f", ["y"], ["x"]) == ("f", ["y"], ["x"])


EXTERNAL = """\
    subroutine f1(n, x, y)
      integer, intent(in) :: n
      real(8), intent(in) :: x(n)
      real(8), intent(out) :: y
      call g(n, x, y)
      y = y**2
    end subroutine f1
    subroutine f2(n, x, z)
      integer, intent(in) :: n
      real(8), intent(in) :: x(n)
      real(8), intent(out) :: z
      call g(n, x, z)
      z = sin(z)
    end subroutine f2
    subroutine g(n, x, s)
      integer, intent(in) :: n
      real(8), intent(in) :: x(n)
      real(8), intent(out) :: s
      s = sum(exp(x)*x)
    end subroutine g
    """

EXTERNAL_DRIVER = """\
    program check
      implicit none
      integer, parameter :: n = 5
      real(8) :: x(n), dx(n), xb(n), y, yb, z, zb, fp, fm, h
      integer :: k
      h = 1.0d-6
      do k = 1, n
        x(k) = 0.1d0*k
        dx(k) = cos(1.0d0*k)
      end do
      xb = 0
      yb = 1
      call f1_rev(n, x, xb, y, yb)
      call f1(n, x + h*dx, fp)
      call f1(n, x - h*dx, fm)
      print '(a, 2es24.15)', 'f1', sum(xb*dx), (fp - fm)/(2*h)
      xb = 0
      zb = 1
      call f2_rev(n, x, xb, z, zb)
      call f2(n, x + h*dx, fp)
      call f2(n, x - h*dx, fm)
      print '(a, 2es24.15)', 'f2', sum(xb*dx), (fp - fm)/(2*h)
    end program check
    """


@pytest.mark.skipif(shutil.which("gfortran") is None, reason="needs gfortran")
@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_external_heads_share_one_tape_module(tmp_path, schedule):
    (tmp_path / "ext.f90").write_text(textwrap.dedent(EXTERNAL))
    (tmp_path / "check.f90").write_text(textwrap.dedent(EXTERNAL_DRIVER))
    done = run(["diff", "ext.f90", "--routine", "f1:y/x", "--routine", "f2:z/x",
                "--schedule", schedule, "-o", "ext_ad.f90"], tmp_path)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "ext_ad.f90").read_text()
    assert text.count("subroutine g_rev(") == 1 and text.count("\nmodule ") == 1
    check_gradients(tmp_path, ["ext.f90", "ext_ad.f90", "check.f90"])
