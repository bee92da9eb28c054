"""adfort as a build step (a Makefile rule): several heads giving code that
compiles, an output never replacing a source adfort reads, the output
file's mode and links as a plain write leaves them, duplicate modules on
the search path, usage errors exiting 1 (2 is for adfort's bugs), and a
forced source form named when the read fails."""

import os
import stat
import subprocess
import sys
import textwrap

import pytest

from test_heads import check_gradients

from adfort.merge import merge


def run(args, cwd, **kwargs):
    return subprocess.run([sys.executable, "-m", "adfort"] + args, cwd=cwd,
                          capture_output=True, text=True, **kwargs)


def compiles(directory, sources):
    done = subprocess.run(["gfortran", "-c"] + sources, cwd=directory, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr


def no_temporaries(directory):
    return not [p for p in directory.rglob(".adfort-*")]


# --- several heads: one access statement per name in a merged module -------

SHARED_STATE = """\
    module vars
      implicit none
      real(8) :: a = 2.0d0
      real(8) :: s
    end module vars
    module phys
      use vars
      implicit none
    contains
      subroutine step(x)
        real(8), intent(in) :: x
        s = a * x + s
      end subroutine step
    end module phys
    module heads
      use vars
      use phys
      implicit none
    contains
      subroutine f(x, y)
        real(8), intent(in) :: x
        real(8), intent(out) :: y
        s = 1
        call step(x)
        y = s**2
      end subroutine f
      subroutine g(x, z)
        real(8), intent(in) :: x
        real(8), intent(out) :: z
        s = x
        call step(2*x)
        z = sin(a * s)
      end subroutine g
    end module heads
    """

SHARED_DRIVER = """\
    program check
      use vars
      use vars_ad
      use heads
      use heads_ad
      implicit none
      real(8) :: x, xb, y, yb, yp, ym, h
      h = 1.0d-6
      x = 0.7d0
      s_adj = 0
      xb = 0
      yb = 1
      call f_rev(x, xb, y, yb)
      call f(x + h, yp)
      call f(x - h, ym)
      print '(a, 2es24.15)', 'f', xb, (yp - ym)/(2*h)
      s_adj = 0
      xb = 0
      yb = 1
      call g_rev(x, xb, y, yb)
      call g(x + h, yp)
      call g(x - h, ym)
      print '(a, 2es24.15)', 'g', xb, (yp - ym)/(2*h)
    end program check
    """


def access_names(text):
    """{module: [name of each PUBLIC/PRIVATE :: list entry]} of `text`."""
    found, module, statement = {}, None, ""
    for line in text.splitlines():
        code = line.strip()
        if code.lower().startswith("module ") and "procedure" not in code.lower():
            module = code.split()[1].lower()
        if statement:
            statement += " " + code.lstrip("&")
        elif code.lower().startswith(("private ::", "public ::")):
            statement = code
        if statement and not statement.endswith("&"):
            names = statement.split("::", 1)[1]
            found.setdefault(module, []).extend(
                n.strip().lower() for n in names.replace("&", " ").split(","))
            statement = ""
    return found


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_heads_sharing_module_variables_compile_and_give_both_gradients(tmp_path, schedule):
    (tmp_path / "two.f90").write_text(textwrap.dedent(SHARED_STATE))
    (tmp_path / "check.f90").write_text(textwrap.dedent(SHARED_DRIVER))
    done = run(["diff", "two.f90", "--routine", "f:y/x", "--routine", "g:z/x",
                "--schedule", schedule, "-o", "two_ad.f90"], tmp_path)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "two_ad.f90").read_text()
    for module, names in access_names(text).items():
        assert len(names) == len(set(names)), (module, names)
    compiles(tmp_path, ["two.f90", "two_ad.f90"])
    check_gradients(tmp_path, ["two.f90", "two_ad.f90", "check.f90"])


def test_heads_with_modules_from_the_search_path_compile(tmp_path):
    include = tmp_path / "inc"
    include.mkdir()
    (include / "kinds.f90").write_text(textwrap.dedent("""\
        module kinds
          implicit none
          integer, parameter :: rk = kind(1.0d0)
          integer, parameter :: n = 6
        end module kinds
        """))
    (include / "column.f90").write_text(textwrap.dedent("""\
        module column
          use kinds
          implicit none
        contains
          subroutine smooth(t, r)
            real(rk), intent(inout) :: t(n)
            real(rk), intent(in) :: r
            integer :: i
            do i = 2, n - 1
              t(i) = t(i) + r*(t(i - 1) - t(i))
            end do
          end subroutine smooth
        end module column
        """))
    (tmp_path / "heads.f90").write_text(textwrap.dedent("""\
        module heads
          use kinds
          use column
          implicit none
        contains
          subroutine step(q, t, r)
            real(rk), intent(out) :: q
            real(rk), intent(inout) :: t(n)
            real(rk), intent(in) :: r
            call smooth(t, r)
            q = sum(sin(t)*t)
          end subroutine step
          subroutine cost(j, t, r)
            real(rk), intent(out) :: j
            real(rk), intent(inout) :: t(n)
            real(rk), intent(in) :: r
            real(rk) :: q
            call smooth(t, 0.5_rk*r)
            call step(q, t, r)
            j = q**2
          end subroutine cost
        end module heads
        """))
    done = run(["diff", "heads.f90", "-I", "inc", "--routine", "step:q/t,r",
                "--routine", "cost:j/t,r", "-o", "heads_ad.f90"], tmp_path)
    assert done.returncode == 0, done.stderr
    for module, names in access_names((tmp_path / "heads_ad.f90").read_text()).items():
        assert len(names) == len(set(names)), (module, names)
    compiles(tmp_path, ["inc/kinds.f90", "inc/column.f90", "heads.f90", "heads_ad.f90"])


def test_merged_access_lists_hold_each_name_once_and_public_wins():
    first = ("module m_ad\n  use m\n  implicit none\n  public\n  private :: s\n"
             "  private :: b\n\n  contains\n  subroutine f_rev()\n  end subroutine f_rev\n"
             "end module m_ad\n")
    second = ("module m_ad\n  use m\n  implicit none\n  public\n  private :: a, S\n"
              "  public :: b\n\n  contains\n  subroutine g_rev()\n  end subroutine g_rev\n"
              "end module m_ad\n")
    text = merge([first, second], ["f", "g"])
    assert access_names(text) == {"m_ad": ["s", "a", "b"]}
    assert "  private :: s, a\n" in text and "  public :: b\n" in text
    assert text.count("\n  public\n") == 1


# --- -o never replaces a source adfort reads ----------------------------------

MODEL = """\
    module model
      use physics
      implicit none
    contains
      subroutine run(x, y)
        real(8), intent(in) :: x
        real(8), intent(out) :: y
        call tend(x, y)
      end subroutine run
    end module model
    """

PHYSICS = """\
    module physics
      implicit none
    contains
      subroutine tend(x, y)
        real(8), intent(in) :: x
        real(8), intent(out) :: y
        y = {formula}
      end subroutine tend
    end module physics
    """


@pytest.fixture
def model(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "model.f90").write_text(textwrap.dedent(MODEL))
    (tmp_path / "src" / "physics.f90").write_text(
        textwrap.dedent(PHYSICS).format(formula="sin(x)*x"))
    return tmp_path


def assert_refused(done, path, before):
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("adfort: error: "), done.stderr
    assert "is an input file" in done.stderr, done.stderr
    assert "choose another with -o" in done.stderr
    assert path.read_text() == before
    assert no_temporaries(path.parent)


def test_output_onto_a_module_read_through_the_search_path_is_refused(model):
    physics = model / "src" / "physics.f90"
    before = physics.read_text()
    done = run(["diff", "model.f90", "-I", "src", "--dep", "y", "--indep", "x",
                "-o", "src/physics.f90"], model)
    assert_refused(done, physics, before)
    assert "physics.f90" in done.stderr


def test_output_onto_an_extra_file_is_refused(model):
    physics = model / "src" / "physics.f90"
    before = physics.read_text()
    done = run(["diff", "model.f90", "src/physics.f90", "--dep", "y", "--indep", "x",
                "-o", "src/physics.f90"], model)
    assert_refused(done, physics, before)


def test_output_through_a_link_onto_a_module_read_is_refused(model):
    physics = model / "src" / "physics.f90"
    before = physics.read_text()
    os.symlink(os.path.join("src", "physics.f90"), model / "link.f90")
    done = run(["diff", "model.f90", "-I", "src", "--dep", "y", "--indep", "x",
                "-o", "link.f90"], model)
    assert_refused(done, physics, before)
    assert os.path.islink(model / "link.f90")


@pytest.mark.parametrize("kind", ["INCLUDE", "#include"])
def test_output_onto_an_included_file_is_refused(tmp_path, kind):
    (tmp_path / "inc").mkdir()
    body = tmp_path / "inc" / "body.h"
    body.write_text("y = sin(x)*x\n")
    suffix = ".F90" if kind == "#include" else ".f90"
    line = "#include \"body.h\"" if kind == "#include" else "include 'body.h'"
    (tmp_path / f"k{suffix}").write_text(
        "subroutine k(x, y)\n  real(8), intent(in) :: x\n  real(8), intent(out) :: y\n"
        f"{line}\nend subroutine k\n")
    done = run(["diff", f"k{suffix}", "-I", "inc", "--dep", "y", "--indep", "x",
                "-o", "inc/body.h"], tmp_path)
    assert_refused(done, body, "y = sin(x)*x\n")
    # Elsewhere the output is written.
    done = run(["diff", f"k{suffix}", "-I", "inc", "--dep", "y", "--indep", "x",
                "-o", "k_ad.f90"], tmp_path)
    assert done.returncode == 0, done.stderr


# --- the output file: mode, links, atomicity -----------------------------------

@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_new_output_respects_the_umask(model, umask, mode):
    done = run(["diff", "model.f90", "-I", "src", "--dep", "y", "--indep", "x",
                "-o", "model_ad.f90"], model, umask=umask)
    assert done.returncode == 0, done.stderr
    assert stat.S_IMODE(os.stat(model / "model_ad.f90").st_mode) == mode
    assert no_temporaries(model)


def test_an_existing_output_keeps_its_mode(model):
    out = model / "model_ad.f90"
    out.write_text("old\n")
    out.chmod(0o640)
    done = run(["diff", "model.f90", "-I", "src", "--dep", "y", "--indep", "x",
                "-o", "model_ad.f90"], model, umask=0o022)
    assert done.returncode == 0, done.stderr
    assert out.read_text().startswith("! Generated by adfort")
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o640


def test_an_output_link_is_kept_and_its_target_replaced(model):
    (model / "build").mkdir()
    target = model / "build" / "model_ad.f90"
    target.write_text("old\n")
    target.chmod(0o664)
    os.symlink(os.path.join("build", "model_ad.f90"), model / "model_ad.f90")
    done = run(["diff", "model.f90", "-I", "src", "--dep", "y", "--indep", "x",
                "-o", "model_ad.f90"], model, umask=0o022)
    assert done.returncode == 0, done.stderr
    assert os.path.islink(model / "model_ad.f90")
    assert target.read_text().startswith("! Generated by adfort")
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o664
    assert no_temporaries(model)
    compiles(model, ["src/physics.f90", "model.f90", "model_ad.f90"])


# --- duplicate modules on the search path ---------------------------------------

def test_two_files_of_one_directory_defining_a_module_are_an_error(model):
    (model / "src" / "physics_old.f90").write_text(
        textwrap.dedent(PHYSICS).format(formula="cos(x)"))
    done = run(["diff", "model.f90", "-I", "src", "--dep", "y", "--indep", "x",
                "-o", "model_ad.f90"], model)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "module 'physics'" in done.stderr
    assert os.path.join("src", "physics.f90") in done.stderr
    assert os.path.join("src", "physics_old.f90") in done.stderr
    assert not (model / "model_ad.f90").exists()


@pytest.mark.parametrize("order, exp_there", [(["src", "other"], True),
                                              (["other", "src"], False)])
def test_the_first_directory_defining_a_module_wins(model, order, exp_there):
    (model / "src" / "physics.f90").write_text(
        textwrap.dedent(PHYSICS).format(formula="exp(x)"))
    (model / "other").mkdir()
    (model / "other" / "physics.f90").write_text(
        textwrap.dedent(PHYSICS).format(formula="x**3"))
    # The same directory twice is not a duplicate.
    flags = [flag for directory in order + ["./" + order[0]] for flag in ("-I", directory)]
    done = run(["diff", "model.f90", *flags, "--dep", "y", "--indep", "x",
                "-o", "model_ad.f90"], model)
    assert done.returncode == 0, done.stderr
    assert ("EXP(" in (model / "model_ad.f90").read_text().upper()) == exp_there


# --- usage errors exit 1 --------------------------------------------------------

@pytest.mark.parametrize("args, fragment", [
    (["diff", "model.f90", "--dep", "y", "--indep", "x", "--cache", "afile"],
     "Invalid value for '--cache'"),
    (["diff", "model.f90", "--dep", "y", "--indep", "x", "--no-such-option"],
     "No such option"),
    (["diff", "model.f90", "--simplify-n-times", "-1"], "Invalid value"),
    (["diff", "model.f90", "--schedule", "sideways"], "Invalid value for '--schedule'"),
    (["diff"], "Missing argument"),
    (["differentiate", "model.f90"], "No such command"),
    (["--no-such-option"], "No such option"),
    (["check", "model.f90", "--seed", "0"], "Invalid value for '--seed'"),
])
def test_usage_errors_exit_1_with_clicks_message(model, args, fragment):
    (model / "afile").write_text("not a directory\n")
    done = run(args, model)
    assert done.returncode == 1, (done.returncode, done.stderr)
    assert fragment in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert not (model / "model_ad.f90").exists()


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["diff", "--help"],
                                  ["check", "-h"]])
def test_help_and_version_exit_0(tmp_path, args):
    done = run(args, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout


# --- a forced source form is named when the read fails --------------------------

def test_a_forced_free_form_read_of_a_fixed_form_file_says_so(tmp_path):
    (tmp_path / "f.f").write_text(
        "      SUBROUTINE F(X, Y)\n      DOUBLE PRECISION X, Y\nC     the square\n"
        "      Y = X*X +\n     &    SIN(X)\n      END\n")
    done = run(["diff", "f.f", "--dep", "y", "--indep", "x"], tmp_path)
    assert done.returncode == 0, done.stderr
    done = run(["diff", "f.f", "--dep", "y", "--indep", "x", "--free-form",
                "-o", "g_ad.f90"], tmp_path)
    assert done.returncode == 1, done.stderr
    assert "syntax error" in done.stderr
    assert "'f.f' was read as free form because of --free-form" in done.stderr, done.stderr
    assert "'.f' means fixed form" in done.stderr
    assert not (tmp_path / "g_ad.f90").exists()


def test_a_forced_fixed_form_read_of_a_free_form_file_says_so(tmp_path):
    (tmp_path / "f.f90").write_text(
        "subroutine f(x, y)\n  real(8), intent(in) :: x\n  real(8), intent(out) :: y\n"
        "  y = x*x + & ! continued\n      sin(x)\nend subroutine f\n")
    done = run(["diff", "f.f90", "--dep", "y", "--indep", "x", "--fixed-form"], tmp_path)
    assert done.returncode == 1, done.stderr
    assert "because of --fixed-form" in done.stderr, done.stderr


def test_a_syntax_error_in_the_suffixs_form_does_not_blame_the_option(tmp_path):
    (tmp_path / "f.f90").write_text(
        "subroutine f(x, y)\n  real(8), intent(in) :: x\n  real(8), intent(out) :: y\n"
        "  y = x*x +\nend subroutine f\n")
    done = run(["diff", "f.f90", "--dep", "y", "--indep", "x", "--free-form"], tmp_path)
    assert done.returncode == 1, done.stderr
    assert "--free-form" not in done.stderr, done.stderr


def test_modules_of_the_search_path_are_found_as_the_preprocessor_leaves_them(tmp_path):
    """Two .F90 files of one -I directory define module phys under
    opposite #ifdef's: the one -DUSE_B keeps is used (the index read the
    raw text: the first file, which preprocesses to nothing, was taken)."""
    src = tmp_path / "src"
    src.mkdir()
    for name, guard, body in (("phys_a.F90", "#ifndef USE_B", "sin(x)"),
                              ("phys_b.F90", "#ifdef USE_B", "x**3")):
        (src / name).write_text(textwrap.dedent(f"""\
            {guard}
            module phys
              implicit none
            contains
              subroutine kern(x, y)
                real(8), intent(in) :: x
                real(8), intent(out) :: y
                y = {body}
              end subroutine kern
            end module phys
            #endif
            """))
    (tmp_path / "top.f90").write_text(textwrap.dedent("""\
        module top
          use phys
          implicit none
        contains
          subroutine f(x, y)
            real(8), intent(in) :: x
            real(8), intent(out) :: y
            call kern(x, y)
          end subroutine f
        end module top
        """))
    for defines, expected in (([], "SIN(x)"), (["-DUSE_B"], "x ** 3")):
        done = run(["diff", "top.f90", "-I", "src", *defines, "--routine", "f", "--dep", "y",
                    "--indep", "x", "-o", "top_ad.f90"], tmp_path)
        assert done.returncode == 0, done.stderr
        assert expected in (tmp_path / "top_ad.f90").read_text()
