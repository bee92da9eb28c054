"""The command line: options, outputs and every user error.

Each error must give one clear message naming the place, exit non-zero,
write no output file, leave the input untouched and show no traceback.
"""

import hashlib
import os
import subprocess
import sys
import textwrap

import pytest

import adfort
import harness

KERNEL = textwrap.dedent("""\
    module flux_mod
      implicit none
      integer, parameter :: wp = kind(1.0d0)
    contains
      subroutine bulk_flux(rho, cp, ch, u, ts, ta, n, flux)
        real(wp), intent(in) :: rho, cp, ch, u, ts, ta
        integer, intent(in) :: n
        real(wp), intent(out) :: flux
        flux = rho * cp * ch * u * (ts - ta) * n
      end subroutine bulk_flux
      subroutine other(a, b)
        real(wp), intent(in) :: a
        real(wp), intent(out) :: b
        b = exp(a)
      end subroutine other
    end module flux_mod
    """)


def run(args, cwd):
    return subprocess.run([sys.executable, "-m", "adfort"] + args, cwd=cwd,
                          capture_output=True, text=True)


def digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def kernel(tmp_path):
    path = tmp_path / "flux.f90"
    path.write_text(KERNEL)
    return path


def assert_clean_failure(result, cwd, *fragments):
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("adfort: error: "), result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, result.stderr
    assert not list(cwd.glob("*_ad.f90")), "an output file was written"
    assert not list(cwd.glob(".adfort-*")), "a temporary file was left behind"


def test_version(tmp_path):
    result = run(["--version"], tmp_path)
    assert result.returncode == 0
    assert adfort.__version__ in result.stdout


def test_help_has_an_example(tmp_path):
    result = run(["diff", "--help"], tmp_path)
    assert result.returncode == 0
    assert "Example" in result.stdout and "--dep" in result.stdout


def test_default_output_name_and_routine_inference(kernel, tmp_path):
    result = run(["diff", str(kernel), "--dep", "flux", "--indep", "ts,ta"], tmp_path)
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "flux_ad.f90").read_text()
    assert "module flux_mod_ad" in text
    assert "subroutine bulk_flux_rev(rho, cp, ch, u, ts, ts_adj, ta, ta_adj, n, flux, flux_adj)" in text


def test_repeated_and_comma_options_are_equivalent(kernel, tmp_path):
    one = run(["diff", str(kernel), "--dep", "flux", "--indep", "ts,ta,u", "-o", "-"], tmp_path)
    two = run(["diff", str(kernel), "--dep", "flux", "--indep", "ts", "--indep", "ta,u",
               "-o", "-"], tmp_path)
    assert one.returncode == two.returncode == 0
    assert one.stdout == two.stdout


def test_output_is_deterministic_and_input_untouched(kernel, tmp_path):
    before = digest(kernel)
    first = run(["diff", str(kernel), "--dep", "flux", "--indep", "ts", "-o", "a.f90"], tmp_path)
    second = run(["diff", str(kernel), "--dep", "flux", "--indep", "ts", "-o", "b.f90"], tmp_path)
    assert first.returncode == second.returncode == 0
    assert (tmp_path / "a.f90").read_text() == (tmp_path / "b.f90").read_text()
    assert digest(kernel) == before


def test_stdout_output(kernel, tmp_path):
    result = run(["diff", str(kernel), "--dep", "b", "--indep", "a", "-o", "-"], tmp_path)
    assert result.returncode == 0
    assert "subroutine other_rev(a, a_adj, b, b_adj)" in result.stdout
    assert not list(tmp_path.glob("*_ad.f90"))


def test_timings_are_reported_on_stderr_only(kernel, tmp_path):
    """``-v`` prints each phase's time on standard error; the output is the
    same as without it."""
    args = ["diff", str(kernel), "--dep", "flux", "--indep", "ts", "-o", "-"]
    plain, timed = run(args, tmp_path), run(args + ["-v"], tmp_path)
    assert plain.returncode == timed.returncode == 0, timed.stderr
    assert timed.stdout == plain.stdout and plain.stderr == ""
    rows = [line.split() for line in timed.stderr.splitlines()]
    assert [r[1] for r in rows] == ["start-up", "read", "analyse", "transform", "write", "total"]
    seconds = [float(r[2]) for r in rows]
    assert all(s >= 0 for s in seconds) and seconds[1] > 0 and seconds[3] > 0
    assert abs(sum(seconds[:-1]) - seconds[-1]) < 0.01


def test_options_change_the_output(kernel, tmp_path):
    base = ["diff", str(kernel), "--dep", "flux", "--indep", "rho,cp,ts", "-o", "-"]
    plain = run(base, tmp_path).stdout
    verbose = run(base + ["--verbose"], tmp_path).stdout
    unsimplified = run(base + ["--no-simplify"], tmp_path).stdout
    zero_passes = run(base + ["--simplify-n-times", "0"], tmp_path).stdout
    kept = run(base + ["--no-inline-operation-adjoints"], tmp_path).stdout
    jacobian = run(base + ["--jacobian"], tmp_path).stdout
    assert "! adjoint of: flux = rho * cp * ch * u * (ts - ta) * n" in verbose
    assert "! adjoint of:" not in plain
    assert unsimplified != plain and unsimplified == zero_passes
    assert kept.count("op_adj") > plain.count("op_adj")
    assert "subroutine bulk_flux_jacobian(" in jacobian and "jacobian" not in plain


@pytest.mark.parametrize("args, fragments", [
    (["missing.f90", "--dep", "y", "--indep", "x"], ["no such file: 'missing.f90'"]),
    (["{k}", "--dep", "flux", "--indep", "ts", "--routine", "nope"],
     ["no routine 'nope'", "bulk_flux, other"]),
    (["{k}", "--dep", "flux", "--indep", "tz"], ["no routine has all of"]),
    (["{k}", "--dep", "flux", "--indep", "tz", "--routine", "bulk_flux"],
     ["flux.f90:5:", "unknown independent variable 'tz'", "rho, cp, ch"]),
    (["{k}", "--dep", "ts", "--indep", "ta", "--routine", "bulk_flux"],
     ["flux.f90:5:", "dependent variable 'ts' is intent(in)"]),
    (["{k}", "--dep", "flux", "--indep", "flux", "--routine", "bulk_flux"],
     ["independent variable 'flux' is intent(out)"]),
    (["{k}", "--dep", "flux", "--indep", "n", "--routine", "bulk_flux"],
     ["independent variable 'n' is not real (it is of type integer)"]),
    (["{k}", "--indep", "ts"], ["no dependent variable"]),
    (["{k}", "--dep", "flux"], ["no independent variable"]),
])
def test_user_errors(kernel, tmp_path, args, fragments):
    before = digest(kernel)
    args = [a.replace("{k}", str(kernel)) for a in args]
    result = run(["diff"] + args, tmp_path)
    assert_clean_failure(result, tmp_path, *fragments)
    assert digest(kernel) == before


def test_syntax_error_names_the_line(tmp_path):
    bad = tmp_path / "bad.f90"
    bad.write_text("subroutine f(x, y)\n  real(8) :: x, y\n  y = x +* 2\nend subroutine f\n")
    result = run(["diff", str(bad), "--dep", "y", "--indep", "x"], tmp_path)
    assert_clean_failure(result, tmp_path, "bad.f90:3:", "syntax error", "y = x +* 2")


@pytest.mark.parametrize("body, fragments", [
    ("assign 10 to i\n  y = x\n  write(*, i) y\n10 format(f8.3)",
     ["k.f90:5:", "ASSIGN of label 10", "not the label of an executable statement"]),
    ("y = x\n  read(*,*) y", ["k.f90:6:", "sets the active variable 'y'",
                                "read it into another (passive) variable"]),
    ("y = x\n  call foo(y)", ["k.f90:6:", "'foo' has no source adfort can see"]),
    ("y = x + w(2)\n  if (x > 1) return 1\n  y = 2 * y", ["k.f90:6:", "alternate return"]),
    ("y = reduce(w * x, plus)", ["k.f90:5:", "REDUCE of an active value", "loop"]),
    ("y = transfer(x, 1.0d0)", ["k.f90:5:", "TRANSFER of an active value", "bit"]),
    ("y = sum(reshape(w(1:2) * x, [2, 1], order=[2, 1]))",
     ["k.f90:5:", "RESHAPE with PAD= or ORDER="]),
    ("y = abs(cmplx(x, w(1), 8))", ["k.f90:5:", "complex active values are not supported"]),
    ("y = x\n  call co_sum(i)", ["k.f90:6:", "CO_SUM", "intrinsic subroutine"]),
    # gfortran reads v(2) as assigned by the elements before it (not the
    # standard's value): no adjoint can match both.
    ("real(8) :: v(3)\n  v = w * x\n  where (v > 0.5d0) v = v(2) + x\n  y = sum(v)",
     ["k.f90:7:", "reads an element of the array it assigns (v(2))", "scalar before"]),
])
def test_unsupported_constructs_are_fenced(tmp_path, body, fragments):
    src = tmp_path / "k.f90"
    src.write_text("subroutine k(x, y, w)\n  real(8), intent(in) :: x, w(3)\n"
                   "  real(8), intent(inout) :: y\n  integer :: i\n"
                   f"  {body}\nend subroutine k\n")
    before = digest(src)
    result = run(["diff", str(src), "--dep", "y", "--indep", "x"], tmp_path)
    assert_clean_failure(result, tmp_path, *fragments)
    assert digest(src) == before


@pytest.mark.parametrize("dummies, declaration, body, args, fragments", [
    ("x, y", "complex(8) :: z", "z = cmplx(x, 2 * x, 8)\n  y = real(z * conjg(z))",
     ["--dep", "y", "--indep", "x"], ["c.f90:5:", "'z' is complex", "complex active values"]),
    ("x, y, z", "complex(8), intent(in) :: z", "y = x * abs(z)",
     ["--dep", "y", "--indep", "z"], ["independent variable 'z'",
                                      "complex active values are not supported"]),
])
def test_complex_values_are_fenced(tmp_path, dummies, declaration, body, args, fragments):
    src = tmp_path / "c.f90"
    src.write_text(f"subroutine k({dummies})\n  real(8), intent(in) :: x\n"
                   f"  real(8), intent(out) :: y\n  {declaration}\n  {body}\n"
                   "end subroutine k\n")
    result = run(["diff", str(src)] + args, tmp_path)
    assert result.returncode == 1
    assert_clean_failure(result, tmp_path, *fragments)


def test_output_onto_input_is_refused(kernel, tmp_path):
    before = digest(kernel)
    result = run(["diff", str(kernel), "--dep", "flux", "--indep", "ts", "-o", str(kernel)],
                 tmp_path)
    assert result.returncode != 0 and "is the input file" in result.stderr
    assert digest(kernel) == before


def test_pointers_are_fenced(tmp_path):
    # An association made in one branch of an IF: the reversed code could
    # not tell which one to restore.
    src = tmp_path / "p.f90"
    src.write_text("subroutine k(x, z, y)\n  real(8), intent(in), target :: x(3), z(3)\n"
                   "  real(8), intent(out) :: y\n  real(8), pointer :: p(:)\n"
                   "  p => z\n  if (x(1) > 0) then\n    p => x\n  end if\n  y = sum(p)\n"
                   "end subroutine k\n")
    result = run(["diff", str(src), "--dep", "y", "--indep", "x"], tmp_path)
    assert_clean_failure(result, tmp_path, "p.f90:7:", "pointer assignment")


@pytest.mark.parametrize("body, fragments", [
    # The reversed code relies on the caller's association throughout.
    ("  p => w\n  y = sum(p)", ["p.f90:6:", "pointer dummy argument 'p' re-associated",
                                "associate a local pointer"]),
    ("  y = sum(p)\n  nullify(p)", ["p.f90:7:", "NULLIFY of the pointer dummy argument 'p'"]),
])
def test_pointer_dummies_that_change_association_are_fenced(tmp_path, body, fragments):
    src = tmp_path / "p.f90"
    src.write_text("subroutine k(p, w, y)\n  real(8), pointer :: p(:)\n"
                   "  real(8), intent(in), target :: w(3)\n  real(8), intent(out) :: y\n"
                   f"  y = 0\n{body}\nend subroutine k\n")
    before = digest(src)
    result = run(["diff", str(src), "--dep", "y", "--indep", "p"], tmp_path)
    assert_clean_failure(result, tmp_path, *fragments)
    assert digest(src) == before


def test_recursion_is_fenced(tmp_path):
    src = tmp_path / "r.f90"
    src.write_text("module m\ncontains\n recursive subroutine f(n, x, y)\n"
                   "  integer, intent(in) :: n\n  real(8), intent(in) :: x\n"
                   "  real(8), intent(inout) :: y\n  y = y * x\n"
                   "  if (n > 0) call f(n - 1, x, y)\n end subroutine f\nend module m\n")
    result = run(["diff", str(src), "--dep", "y", "--indep", "x"], tmp_path)
    assert_clean_failure(result, tmp_path, "r.f90:8:", "recursion is not supported")


@pytest.mark.parametrize("output, fragments", [
    ("no/such/dir/out.f90", ["cannot write the output", "does not exist"]),
    (".", ["is a directory", "give a file name with -o"]),
])
def test_unwritable_output_is_a_user_error(kernel, tmp_path, output, fragments):
    '''Checked before any work: exit 1 with one line, nothing written.'''
    result = run(["diff", str(kernel), "--dep", "flux", "--indep", "ts", "-o", output],
                 tmp_path)
    assert result.returncode == 1
    assert_clean_failure(result, tmp_path, *fragments)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="permissions do not bind root")
def test_read_only_output_directory(kernel, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        result = run(["diff", str(kernel), "--dep", "flux", "--indep", "ts",
                      "-o", str(locked / "flux_ad.f90")], tmp_path)
    finally:
        locked.chmod(0o755)
    assert result.returncode == 1
    assert_clean_failure(result, tmp_path, "cannot write the output", "permission denied")


def test_failed_write_is_a_user_error(kernel, tmp_path, monkeypatch):
    '''A file system refusing the write (read-only mount, full disk) late,
    after the checks: still a one-line error, exit 1, no temporary left.'''
    from click.testing import CliRunner
    import adfort.cli

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Read-only file system")
    monkeypatch.setattr(adfort.cli.tempfile, "mkstemp", refuse)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(adfort.cli.main, [
        "diff", str(kernel), "--dep", "flux", "--indep", "ts", "-o", "out_ad.f90"])
    assert result.exit_code == 1, result.output
    assert "adfort: error: cannot write the output 'out_ad.f90': Read-only file system" \
        in result.output
    assert not list(tmp_path.glob("*_ad.f90")) and not list(tmp_path.glob(".adfort-*"))


_MACHINE_CONSTANTS = """\
      DOUBLE PRECISION FUNCTION EPSMCH(I)
      INTEGER I, MCHEPS(4)
      DOUBLE PRECISION DMACH(2)
      EQUIVALENCE (DMACH(1), MCHEPS(1))
      DATA MCHEPS(1), MCHEPS(2) / 0, 1018167296 /
      EPSMCH = DMACH(1)*I
      END
      SUBROUTINE STEP(X, Y)
      DOUBLE PRECISION X, Y, EPSMCH
      Y = X*X + {arg}
      END
"""


def test_unreadable_callee_carrying_no_derivative_is_called_as_it_is(tmp_path):
    '''PSyclone cannot represent EPSMCH (EQUIVALENCE); it only changes its
    arguments, and none of them is active: the adjoint calls it as it is.'''
    src = tmp_path / "m.f"
    src.write_text(_MACHINE_CONSTANTS.format(arg="EPSMCH(2)"))
    result = run(["diff", str(src), "--routine", "step", "--dep", "y", "--indep", "x",
                  "-o", "out.f90"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "EPSMCH(2)" in (tmp_path / "out.f90").read_text().upper()


def test_unreadable_callee_carrying_a_derivative_says_why_it_cannot_be_read(tmp_path):
    src = tmp_path / "m.f"
    src.write_text(_MACHINE_CONSTANTS.format(arg="EPSMCH(1)*X").replace(
        "INTEGER I, MCHEPS(4)", "INTEGER MCHEPS(4)\n      DOUBLE PRECISION I").replace(
        "EPSMCH(1)*X", "EPSMCH(X)"))
    result = run(["diff", str(src), "--routine", "step", "--dep", "y", "--indep", "x"],
                 tmp_path)
    assert_clean_failure(result, tmp_path, "m.f:5:", "EQUIVALENCE")


_SHARED_COMMON = """\
      SUBROUTINE SETC(I)
      INTEGER I, MW(2)
      DOUBLE PRECISION C, DW
      COMMON /CONSTS/ C
      EQUIVALENCE (DW, MW(1))
      DW = 2.0D0
      C = DW*I
      END
      SUBROUTINE STEP(X, Y)
      DOUBLE PRECISION X, Y, C
      COMMON /CONSTS/ C
      CALL SETC(3)
      Y = X*C
      END
"""


def test_unreadable_callee_sharing_a_common_block_is_an_error(tmp_path):
    '''SETC, which adfort cannot read, writes COMMON /CONSTS/, which the
    differentiated routine reads: its effect cannot be known, so the call is
    refused at SETC's line rather than treated as passive.'''
    src = tmp_path / "m.f"
    src.write_text(_SHARED_COMMON)
    result = run(["diff", str(src), "--routine", "step", "--dep", "y", "--indep", "x",
                  "-o", "out.f90"], tmp_path)
    assert_clean_failure(result, tmp_path, "m.f:5:", "EQUIVALENCE")


def test_unreadable_callee_with_a_common_block_of_its_own_is_called(tmp_path):
    src = tmp_path / "m.f"
    src.write_text(_SHARED_COMMON.replace("      COMMON /CONSTS/ C\n      CALL", "      CALL")
                   .replace("Y = X*C", "C = 3.0D0\n      Y = X*C"))
    result = run(["diff", str(src), "--routine", "step", "--dep", "y", "--indep", "x",
                  "-o", "out.f90"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "CALL SETC(3)" in (tmp_path / "out.f90").read_text().upper()


_ANY_SIZE_COLUMN = """\
      SUBROUTINE ELIM(A, LDA, N)
      INTEGER LDA, N, K
      DOUBLE PRECISION A(LDA,1), T
      DO 10 K = 1, N - 1
         T = -1.0D0/A(K,K)
         CALL DSCAL2(N-K, T, A(K+1,K), 1)
   10 CONTINUE
      END
      SUBROUTINE DSCAL2(N, DA, DX, INCX)
      INTEGER N, INCX, I
      DOUBLE PRECISION DA, DX(1)
      DO 20 I = 1, N
         DX(I) = DA*DX(I)
   20 CONTINUE
      END
"""


def test_f77_any_size_dummy_is_not_taken_as_one_element(tmp_path):
    '''A(LDA,1) is F77 for "any number of columns": the columns the call
    overwrites from A(K+1,K) on are measured by the callee, and the call is
    reversed split under the joint schedule (joint would have to save them
    before knowing how many there are); r_rev copies A(1:lda, 1:a_extent).
    The derivative check is tests/test_legacy_code.py.'''
    src = tmp_path / "m.f"
    src.write_text(_ANY_SIZE_COLUMN)
    result = run(["diff", str(src), "--routine", "elim", "--dep", "a", "--indep", "a",
                  "--schedule", "joint", "-o", "out.f90"], tmp_path)
    assert result.returncode == 0, result.stderr
    out = (tmp_path / "out.f90").read_text().lower()
    assert "call dscal2_rec(n - k, t, a(k + 1,k), 1, dx_extent)" in out
    assert "call dscal2_ret(" in out and "call dscal2_rev(" not in out
    assert "a(1:lda,1:a_extent) = a_out" in out


FILL_FROM_ELEMENT = """\
    ! adfort: routine=column dep=cost indep=t
    ! adfort: init n=6 t=0.5:1.5
    subroutine fill(n, q)
      integer, intent(in) :: n
      real(8), intent(out) :: q(DIMENSION)
      q(1:n) = -1.25d0
    end subroutine fill
    subroutine column(n, t, cost)
      integer, intent(in) :: n
      real(8), intent(inout) :: t(n)
      real(8), intent(out) :: cost
      t = t**2
      call fill(n - 2, t(2))
      cost = sum(t*t)
    end subroutine column
    """


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_element_starting_an_array_overwritten_passively(schedule, tmp_path):
    """An element given as the start of an array dummy the callee fills with
    constants (sequence association): the adjoints of every element the
    dummy spans are cleared, t(2:2+n-2-1), counted from its declared extent
    (fuzz L3 seed 100144 was a wrong gradient: only the first element's
    adjoint was cleared; adfort then refused the call)."""
    harness.check_source(tmp_path, "fill.f90", FILL_FROM_ELEMENT.replace("DIMENSION", "n"),
                         schedule)


def test_element_of_a_matrix_starting_an_array_overwritten_passively_is_refused(tmp_path):
    """The same from an element of a matrix: the elements the dummy spans
    run on into the next columns, no section of the matrix, so it is an
    error at the call."""
    source = tmp_path / "fill.f90"
    source.write_text(textwrap.dedent(FILL_FROM_ELEMENT.replace("DIMENSION", "n")).replace(
        "real(8), intent(inout) :: t(n)", "real(8), intent(inout) :: t(n, 2)").replace(
        "call fill(n - 2, t(2))", "call fill(n - 2, t(2, 1))"))
    for schedule in ("split", "joint"):
        result = run(["diff", str(source), "--dep", "cost", "--indep", "t", "--routine",
                      "column", "--schedule", schedule], tmp_path)
        assert_clean_failure(result, tmp_path, "fill.f90:13:", "'t(2,1)' starts the array 'q'",
                             "'fill'")


def test_where_calling_a_function_that_reads_the_assigned_module_array_is_refused(tmp_path):
    """gfortran evaluates ``h = 0.1 + fsat(h)`` in a WHERE element by element,
    so ``fsat`` reading ``h(1)`` through its module sees the new value; the
    standard (and adfort's lowering) the old one: an error, not an r_rev whose
    primal results differ from r's (fuzz L4 seed 300078)."""
    source = tmp_path / "soil.f90"
    source.write_text(textwrap.dedent("""\
        module soil_state
          implicit none
          real(8) :: h(6)
        contains
          elemental real(8) function fsat(psi)
            real(8), intent(in) :: psi
            fsat = 2.0d0 + 0.9d0*max(h(1), psi)
          end function fsat
        end module soil_state
        subroutine wet(x, cost)
          use soil_state
          real(8), intent(in) :: x
          real(8), intent(out) :: cost
          where (h > -1.0d0)
            h = 0.1d0 + 0.4d0*(fsat(h) + h*x)
          end where
          cost = sum(h)
        end subroutine wet
        """))
    result = run(["diff", str(source), "--dep", "cost", "--indep", "x", "--routine", "wet"],
                 tmp_path)
    assert_clean_failure(result, tmp_path, "soil.f90:15:", "calls 'fsat'", "reads 'h'")


def test_jacobian_with_module_array_independents(tmp_path):
    """The Jacobian of a routine using a module by a wildcard USE, with two
    of its arrays independent: the bounds of the Jacobian's column sections
    name them (SIZE(salt)) where the routine's own table does not; adfort
    stopped with an internal error (exit 2).  The output must compile and
    match central differences."""
    source = tmp_path / "kernel.f90"
    source.write_text(textwrap.dedent("""\
        module params
          implicit none
          integer, parameter :: nk = 4
          real(kind=8) :: salt(nk)
          real(kind=8) :: tend(nk)
        end module params
        subroutine kernel(n, beta, work, h)
          use params
          implicit none
          integer, intent(in) :: n
          real(kind=8), intent(in) :: beta
          real(kind=8), intent(inout) :: work(n)
          real(kind=8), intent(inout) :: h
          work(1) = work(1) * beta
          h = 0.117d0 * (h + sum(work) * salt(1) + tend(2)) - 0.199d0
        end subroutine kernel
        """))
    res = run(["diff", "kernel.f90", "--routine", "kernel", "--dep", "h", "--indep",
               "beta,work,params::salt,params::tend", "--jacobian", "-o", "kernel_ad.f90"],
              tmp_path)
    assert res.returncode == 0, res.stderr
    # Its columns (beta, work, salt, tend) against central differences.
    (tmp_path / "driver.f90").write_text(textwrap.dedent("""\
        program driver
          use params
          implicit none
          integer, parameter :: n = 3
          real(kind=8) :: beta, work(n), h, jac(1, 1 + n + 2*nk), hp, hm, fd, err
          real(kind=8), parameter :: w0(n) = [0.3d0, -0.2d0, 0.5d0]
          real(kind=8), parameter :: s0(nk) = [1.1d0, 0.4d0, 0.9d0, 1.3d0]
          real(kind=8), parameter :: t0(nk) = [0.2d0, 0.8d0, -0.5d0, 0.6d0]
          integer :: k
          beta = 0.7d0
          work = w0
          salt = s0
          tend = t0
          h = 0.4d0
          call kernel_jacobian(n, beta, work, h, jac)
          err = 0
          do k = 1, 1 + n + 2*nk
            hp = perturbed(k, 1.0d-6)
            hm = perturbed(k, -1.0d-6)
            fd = (hp - hm) / 2.0d-6
            err = max(err, abs(fd - jac(1, k)) / max(1.0d0, abs(fd)))
          end do
          print '(es12.4)', err
        contains
          real(kind=8) function perturbed(k, d)
            integer, intent(in) :: k
            real(kind=8), intent(in) :: d
            real(kind=8) :: b, hh
            b = 0.7d0
            work = w0
            salt = s0
            tend = t0
            hh = 0.4d0
            if (k == 1) then
              b = b + d
            else if (k <= 1 + n) then
              work(k - 1) = work(k - 1) + d
            else if (k <= 1 + n + nk) then
              salt(k - 1 - n) = salt(k - 1 - n) + d
            else
              tend(k - 1 - n - nk) = tend(k - 1 - n - nk) + d
            end if
            call kernel(n, b, work, hh)
            perturbed = hh
          end function perturbed
        end program driver
        """))
    compiled = subprocess.run(["gfortran", "kernel.f90", "kernel_ad.f90", "driver.f90", "-o",
                               "check"], cwd=tmp_path, capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stderr
    ran = subprocess.run(["./check"], cwd=tmp_path, capture_output=True, text=True)
    assert ran.returncode == 0 and float(ran.stdout) < 1e-6, ran.stdout + ran.stderr


def test_routine_of_an_unreadable_module_says_why(tmp_path):
    """A module PSyclone keeps whole as a code block (here a duplicated
    declaration): asking for one of its routines names the module's
    problem at file:line, not "no routine 's' in this file"."""
    (tmp_path / "bad.f90").write_text(
        "module m\n  implicit none\ncontains\n  subroutine s(n, x, y)\n"
        "    integer, intent(in) :: n\n    real, intent(inout) :: x(n), y\n"
        "    real, intent(out) :: y\n    y = sum(x)\n  end subroutine s\nend module m\n")
    before = digest(tmp_path / "bad.f90")
    result = run(["diff", "bad.f90", "--routine", "s", "--dep", "y", "--indep", "x",
                  "-o", "bad_ad.f90"], tmp_path)
    assert result.returncode == 1, result.stderr
    assert_clean_failure(result, tmp_path, "bad.f90:7:", "cannot read 'MODULE m'",
                         "'y' is declared twice")
    assert "no routine" not in result.stderr
    assert digest(tmp_path / "bad.f90") == before


def test_bytes_that_are_not_utf8_go_out_as_they_came_in(tmp_path):
    """A Latin-1 character in a string (é as the byte 0xE9) came out as
    U+FFFD's three bytes: the generated code compared with another string
    and took the other branch (a wrong derivative, exit 0)."""
    source = (b"module m\ncontains\n  subroutine r(x, y, opt)\n    real(8), intent(in) :: x\n"
              b"    real(8), intent(out) :: y\n    character(len=*), intent(in) :: opt\n"
              b"    if (opt == '\xe9') then\n      y = x*x\n    else\n      y = x\n"
              b"    end if\n  end subroutine\nend module\n")
    (tmp_path / "k.f90").write_bytes(source)
    result = run(["diff", "k.f90", "--dep", "y", "--indep", "x", "-o", "k_ad.f90"], tmp_path)
    assert result.returncode == 0, result.stderr
    written = (tmp_path / "k_ad.f90").read_bytes()
    assert b"'\xe9'" in written and b"\xef\xbf\xbd" not in written
    piped = subprocess.run([sys.executable, "-m", "adfort", "diff", "k.f90", "--dep", "y",
                            "--indep", "x", "-o", "-"], cwd=tmp_path, capture_output=True)
    assert piped.returncode == 0 and b"'\xe9'" in piped.stdout


def test_a_byte_order_mark_is_skipped(tmp_path):
    """A UTF-8 byte-order mark opening the file (Windows editors) was read
    as text: a "syntax error" in code gfortran accepts."""
    (tmp_path / "k.f90").write_bytes(
        b"\xef\xbb\xbfsubroutine k(x, y)\n  real(8), intent(in) :: x\n"
        b"  real(8), intent(out) :: y\n  y = x*x\nend subroutine k\n")
    result = run(["diff", "k.f90", "--dep", "y", "--indep", "x", "-o", "k_ad.f90"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "\ufeff" not in (tmp_path / "k_ad.f90").read_text()
