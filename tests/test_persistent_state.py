"""Persistent state after several calls of ``r_rev`` in a row.

``r_rev`` leaves module variables, COMMON members and its own SAVE'd
locals as one call of ``r`` leaves them (README, *What the arguments hold
on return*; adfort/transformations/reversing.py copies every such variable
``r`` and its callees may write once the recording is over, and copies it
back once the returning motion is).  It used not to, silently:

- a lookup table a callee two calls down builds in its assumed-size dummy
  (``call tabi(n, w)`` with ``w`` a module variable or a COMMON member, the
  "initialise the FFT on first use" idiom) was put back to its values from
  before the call by the callee's returning motion, while the "already
  built" flag or counter kept its new value: every later call used a zero
  table (the module variable given as an argument was no module write of
  the routine passing it, for the callers above);
- a SAVE'd local changed inside a DO loop (``j = mod(j, n) + 1``) was
  rolled back by the loop's reversal;
- an F77 ``SAVE J`` / ``DATA J /0/`` local handed to ``r_ret_given``
  kept its DATA statement there, where it is a dummy (compile error);
- a call ``r_rev`` leaves to its reversal (adfort.deferral) to a callee
  with a SAVE'd counter ran that callee's ``f_rev``, whose returning part
  rolled its copy of the counter back.

Each case calls ``r_rev`` three times in a row from the same inputs and
compares, call by call, the primal results and the persistent state with
three calls of ``r``, and the gradient with central differences of the
k-th call of ``r`` (a fresh process per point: SAVE'd state cannot be
reset).
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

import harness

CALLS = 3
FD_H = 1.0e-6

# Each case: the source, the routine, dependents, independents, the
# driver's USE lines and declarations, the statements setting the inputs
# (perturbed by `eps` along a fixed direction), the call of r, the call of
# r_rev (its seeds set first), the value J whose gradient along the
# direction r_rev gives (seeded as the seeds say), r_rev's gradient along
# the direction, and the outputs and state printed after each call.

F6_MODULE = """\
module m
  implicit none
  real(8), save :: w(20) = 0          ! w(1:n) work, w(n+1:2n) table
  integer, save :: ninit = 0
contains
  subroutine deriv(n, u, ux)
    integer, intent(in) :: n
    real(8), intent(in) :: u(n)
    real(8), intent(out) :: ux(n)
    external :: tabi, apply
    if (ninit /= n) then
      call tabi(n, w)
      ninit = n
    end if
    ux = u
    call apply(n, ux, w)
  end subroutine deriv
  subroutine h(n, u, du)
    integer, intent(in) :: n
    real(8), intent(in) :: u(n)
    real(8), intent(out) :: du(n)
    real(8) :: ux(n)
    call deriv(n, u, ux)
    du = u*ux + ux**2
  end subroutine h
end module m
subroutine tabi(n, t)
  integer n, i
  double precision t(*)
  do i = 1, n
    t(n+i) = cos(0.1d0*i)
  end do
end
subroutine apply(n, r, t)
  integer n, i
  double precision r(*), t(*)
  do i = 1, n
    t(i) = r(i)*t(n+i)
    r(i) = t(i)**2
  end do
end
"""

# The table rebuilt on every call: w must still hold what r leaves.
F6_ALWAYS = F6_MODULE.replace("""\
    if (ninit /= n) then
      call tabi(n, w)
      ninit = n
    end if""", """\
    call tabi(n, w)
    ninit = ninit + 1""")

F6_DRIVER = dict(
    use="use m",
    decl="real(8) :: u(3), ua(3), du(3), dua(3)",
    inputs="u = [1d0, 2d0, 3d0] + eps*[0.3d0, -0.7d0, 0.5d0]",
    call="call h(3, u, du)",
    rev="ua = 0; dua = [1d0, 0.5d0, 2d0]\n    call h_rev(3, u, ua, du, dua)",
    value="sum([1d0, 0.5d0, 2d0]*du)",
    grad="sum(ua*[0.3d0, -0.7d0, 0.5d0])",
    state="du, w(1:6), dble(ninit)")

F7_COMMON = """\
      SUBROUTINE H(N,U,DU)
      INTEGER N,I
      DOUBLE PRECISION U(N),DU(N),UX(100)
      CALL DERIV(N,U,UX)
      DO 10 I=1,N
         DU(I) = U(I)*UX(I)
   10 CONTINUE
      END

      SUBROUTINE DERIV(N,U,UX)
      INTEGER N,I
      DOUBLE PRECISION U(N),UX(N),W
      COMMON /WORK/ W(20)
      LOGICAL FIRST
      SAVE FIRST
      DATA FIRST /.TRUE./
      IF (FIRST) THEN
         CALL TABI(N,W)
         FIRST = .FALSE.
      END IF
      DO 10 I=1,N
         UX(I) = U(I)
   10 CONTINUE
      CALL APPLY(N,UX,W)
      END

      SUBROUTINE TABI(N,T)
      INTEGER N,I
      DOUBLE PRECISION T(*)
      DO 10 I=1,N
         T(N+I) = COS(0.1D0*I)
   10 CONTINUE
      END

      SUBROUTINE APPLY(N,R,T)
      INTEGER N,I
      DOUBLE PRECISION R(*),T(*)
      DO 10 I=1,N
         T(I) = R(I)*T(N+I)
         R(I) = T(I)**2
   10 CONTINUE
      END
"""

F7_DRIVER = dict(F6_DRIVER, use="", decl=F6_DRIVER["decl"]
                 + "\n  real(8) :: w(20)\n  common /work/ w",
                 state="du, w(1:6)")

F4_F90 = """\
subroutine f(n, x, y)
  integer :: n, k
  integer, save :: j = 0
  double precision :: x(n), y
  y = 0
  do k = 1, 3
    j = mod(j, n) + 1
    y = y + x(j)**2
  end do
end subroutine
"""

F4_F77 = """\
      SUBROUTINE F(N,X,Y)
      INTEGER N,J,K
      DOUBLE PRECISION X(N),Y
      SAVE J
      DATA J /0/
      Y = 0
      DO 10 K=1,3
         J = MOD(J,N) + 1
         Y = Y + X(J)**2
   10 CONTINUE
      END
"""

F4_DRIVER = dict(
    use="",
    decl="double precision :: x(5), xa(5), y, ya",
    inputs="x = [1d0, 2d0, 3d0, 4d0, 5d0] + eps*[0.3d0, -0.7d0, 0.5d0, 0.2d0, -0.4d0]",
    call="call f(5, x, y)",
    rev="xa = 0; ya = 1\n    call f_rev(5, x, xa, y, ya)",
    value="y",
    grad="sum(xa*[0.3d0, -0.7d0, 0.5d0, 0.2d0, -0.4d0])",
    state="y")

# A per-point callee with a SAVE'd counter, called where r_rev could leave
# the call to its reversal (adfort.deferral).
DEFERRED = """\
module md
  implicit none
contains
  subroutine pt(a, b)
    real(8), intent(in) :: a
    real(8), intent(out) :: b
    integer, save :: j = 0
    integer :: k
    b = 0
    do k = 1, 2
      j = mod(j, 3) + 1
      b = b + j*a**2
    end do
  end subroutine pt
  subroutine r(n, x, y)
    integer, intent(in) :: n
    real(8), intent(in) :: x(n)
    real(8), intent(out) :: y(n)
    integer :: i
    do i = 1, n
      call pt(x(i), y(i))
    end do
  end subroutine r
end module md
"""

DEFERRED_DRIVER = dict(
    use="use md",
    decl="real(8) :: x(2), xa(2), y(2), ya(2)",
    inputs="x = [1d0, 2d0] + eps*[0.3d0, -0.7d0]",
    call="call r(2, x, y)",
    rev="xa = 0; ya = [1d0, 2d0]\n    call r_rev(2, x, xa, y, ya)",
    value="sum([1d0, 2d0]*y)",
    grad="sum(xa*[0.3d0, -0.7d0])",
    state="y")

CASES = {
    # name: (file name, source, routine, dep, indep, driver, extra CLI)
    "f6 module table built once": ("f6.f90", F6_MODULE, "h", "du", "u", F6_DRIVER, []),
    "f6 module table built every call": ("f6a.f90", F6_ALWAYS, "h", "du", "u", F6_DRIVER, []),
    "f7 COMMON table, SAVE and DATA flag": ("f7.f", F7_COMMON, "h", "du", "u", F7_DRIVER, []),
    "f4 SAVE'd local in a loop": ("f4.f90", F4_F90, "f", "y", "x", F4_DRIVER, []),
    "f3 F77 SAVE and DATA local in a loop": ("f3.f", F4_F77, "f", "y", "x", F4_DRIVER, []),
}

# Mixed links: a split head over a joint link below it, and the other way.
MIXED = {
    "f6 split, deriv:apply joint": ("f6.f90", F6_MODULE, "h", "du", "u", F6_DRIVER,
                                    ["--link", "deriv:apply=joint"], "split"),
    "f6 joint, h:deriv split": ("f6.f90", F6_MODULE, "h", "du", "u", F6_DRIVER,
                                ["--link", "h:deriv=split"], "joint"),
    "f7 joint, h:deriv split": ("f7.f", F7_COMMON, "h", "du", "u", F7_DRIVER,
                                ["--link", "h:deriv=split"], "joint"),
    # (joint: SAVE'd state changing what a callee reversed joint computes
    # is rejected)
    "deferred callee with a SAVE'd counter": ("d.f90", DEFERRED, "r", "y", "x",
                                              DEFERRED_DRIVER, [], "split"),
}


def _program(name, driver, body, rev=False):
    use = driver["use"]
    if rev and use:
        use += "\n  " + use + "_ad"
    return f"""\
program {name}
  {use}
  implicit none
  {driver['decl']}
  real(8) :: eps, adf_eps, adf_g
  integer :: adf_k, adf_calls
  character(len=64) :: adf_arg
{body}
end program {name}
"""


def _rev_driver(driver):
    """r_rev called CALLS times from the same inputs: @k J gradient state."""
    body = f"""\
  eps = 0
  do adf_k = 1, {CALLS}
    {driver['inputs']}
    {driver['rev']}
    adf_g = {driver['grad']}
    write(*, '(a, 1x, i0, *(1x, es25.16e3))') '@', adf_k, {driver['value']}, adf_g, {driver['state']}
  end do"""
    return _program("adf_rev", driver, body, rev=True)


def _primal_driver(driver):
    """r called k times (the last one at the inputs perturbed by eps, both
    from the command line): J and the state after the last call."""
    body = f"""\
  call get_command_argument(1, adf_arg)
  read(adf_arg, *) adf_calls
  call get_command_argument(2, adf_arg)
  read(adf_arg, *) adf_eps
  do adf_k = 1, adf_calls
    eps = merge(adf_eps, 0d0, adf_k == adf_calls)
    {driver['inputs']}
    {driver['call']}
  end do
  write(*, '(a, *(1x, es25.16e3))') '@', {driver['value']}, {driver['state']}"""
    return _program("adf_primal", driver, body)


def _numbers(line):
    return [float(v) for v in line.split()[1:]]


def _build(tmp_path, name, source, routine, dep, indep, driver, schedule, extra):
    src = tmp_path / name
    src.write_text(source)
    generated = tmp_path / "gen_ad.f90"
    result = subprocess.run(
        [sys.executable, "-m", "adfort", "diff", str(src), "--routine", routine, "--dep", dep,
         "--indep", indep, "--schedule", schedule, "-o", str(generated)] + extra,
        cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    exes = {}
    for kind, text in (("rev", _rev_driver(driver)), ("primal", _primal_driver(driver))):
        drv = tmp_path / f"{kind}_driver.f90"
        drv.write_text(text)
        exe = tmp_path / kind
        objects = [src] + ([generated] if kind == "rev" else [])
        built = subprocess.run(
            [harness.gfortran(), *harness.RUN_FFLAGS, "-o", str(exe), *map(str, objects),
             str(drv)], cwd=tmp_path, capture_output=True, text=True)
        assert built.returncode == 0, built.stderr + "\n" + generated.read_text()
        exes[kind] = exe
    return generated, exes


def _run(exe, *args):
    out = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True,
                         timeout=60, cwd=exe.parent)
    assert out.returncode == 0, out.stderr
    return [line for line in out.stdout.splitlines() if line.startswith("@")]


def _check(tmp_path, name, source, routine, dep, indep, driver, schedule, extra):
    generated, exes = _build(tmp_path, name, source, routine, dep, indep, driver,
                             schedule, extra)
    rev = _run(exes["rev"])
    assert len(rev) == CALLS, rev
    for k in range(1, CALLS + 1):
        numbers = _numbers(rev[k - 1])
        assert int(numbers[0]) == k
        value, grad, state = numbers[1], numbers[2], numbers[3:]
        ref = _numbers(_run(exes["primal"], k, 0.0)[0])
        # Primal results and persistent state as after k calls of r.
        assert value == pytest.approx(ref[0], rel=1e-12, abs=1e-14), (k, rev, ref)
        assert state == pytest.approx(ref[1:], rel=1e-12, abs=1e-14), (k, rev, ref)
        plus = _numbers(_run(exes["primal"], k, FD_H)[0])[0]
        minus = _numbers(_run(exes["primal"], k, -FD_H)[0])[0]
        fd = (plus - minus) / (2 * FD_H)
        assert grad == pytest.approx(fd, rel=1e-6, abs=1e-8), (k, grad, fd)
    return generated


@pytest.mark.parametrize("schedule", ["split", "joint"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_repeated_reversals_keep_persistent_state(case, schedule, tmp_path):
    name, source, routine, dep, indep, driver, extra = CASES[case]
    _check(tmp_path, name, source, routine, dep, indep, driver, schedule, extra)


@pytest.mark.parametrize("case", sorted(MIXED))
def test_repeated_reversals_under_mixed_links(case, tmp_path):
    name, source, routine, dep, indep, driver, extra, schedule = MIXED[case]
    _check(tmp_path, name, source, routine, dep, indep, driver, schedule, extra)


def test_saved_and_data_local_given_to_ret_given_loses_its_data(tmp_path):
    """F3: the F77 SAVE'd and DATA-initialised local handed to
    ``f_ret_given`` is a dummy there: no DATA statement names it (gfortran:
    "DATA attribute conflicts with DUMMY attribute")."""
    generated = _check(tmp_path, "f3.f", F4_F77, "f", "y", "x", F4_DRIVER, "split", [])
    text = generated.read_text()
    given = re.search(r"subroutine F_ret_given\(.*?end subroutine F_ret_given", text,
                      re.S | re.I)
    assert given is not None, text
    assert "DATA" not in given.group(0).upper().replace("_ADJ", ""), given.group(0)
    # r_rev itself keeps its DATA'd copy and puts its final value back.
    rev = re.search(r"subroutine F_rev\(.*?end subroutine F_rev", text, re.S | re.I).group(0)
    assert re.search(r"DATA J / 0 /", rev, re.I), rev


def test_nothing_persistent_written_gets_no_copies(tmp_path):
    """A routine writing no module, COMMON or SAVE'd variable: r_rev takes
    no copies of any (the generated code stays as lean as before)."""
    source = tmp_path / "p.f90"
    source.write_text("""\
module mp
  implicit none
  real(8) :: scale = 2d0
contains
  subroutine p(n, x, y)
    integer, intent(in) :: n
    real(8), intent(in) :: x(n)
    real(8), intent(out) :: y
    integer :: i
    y = 0
    do i = 1, n
      y = y + scale*sin(x(i))**2
    end do
  end subroutine p
end module mp
""")
    generated = tmp_path / "p_ad.f90"
    result = subprocess.run(
        [sys.executable, "-m", "adfort", "diff", str(source), "--routine", "p", "--dep", "y",
         "--indep", "x", "-o", str(generated)], cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "_out" not in generated.read_text()
