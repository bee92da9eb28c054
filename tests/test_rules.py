"""Every derivative rule, checked against central finite differences.

Each row is a scalar kernel ``y = <expression>`` of inputs x1, x2, x3
(drawn from (0.2, 0.8), where every function here is smooth); a test
asserts the rules table and the rows name the same operations, so adding
a rule without a row fails.
"""

import subprocess
import textwrap

import pytest

import harness
from psyclone.psyir.nodes import IntrinsicCall

from adfort import intrinsics
from adfort.api import differentiate_file
from adfort.rules import RULES
from adfort.schedules import SplitReversalSchedule

ROWS = {
    "PLUS": "+x1 * x2",
    "MINUS": "-x1 * x2",
    "ADD": "x1 + x2",
    "SUB": "x1 - x2",
    "MUL": "x1 * x2",
    "DIV": "x1 / x2",
    "POW": "x1 ** x2 + x1 ** 2 + x2 ** 0.5d0 + x3 ** (-1.5d0)",
    "SQRT": "sqrt(x1 + x2)",
    "EXP": "exp(x1 * x2)",
    "LOG": "log(x1 + 2 * x2)",
    "LOG10": "log10(x1 * x2)",
    "SIN": "sin(x1 * x2)",
    "COS": "cos(x1 + x2)",
    "TAN": "tan(x1 - x2)",
    "ASIN": "asin(x1 * x2)",
    "ACOS": "acos(x1 * x2)",
    "ATAN": "atan(x1 / x2)",
    "ATAN2": "atan2(x1, x2 - 0.5d0) + atan2(x=x3, y=x1 * x2)",
    "SINH": "sinh(x1 * x2)",
    "COSH": "cosh(x1 - x2)",
    "TANH": "tanh(x1 / x2)",
    "ASINH": "asinh(x1 - x2)",
    "ACOSH": "acosh(1.0d0 + x1 + x2)",
    "ATANH": "atanh(x1 * x2)",
    "ERF": "erf(x1 - x2)",
    "ERFC": "erfc(x1 * x2)",
    "HYPOT": "hypot(x1, x2)",
    "ERFC_SCALED": "erfc_scaled(x1 * x2 + x3)",
    # (A negative argument takes the digamma helper's reflection; a big
    # one its series directly.)
    "GAMMA": "gamma(x1 + x2 + 0.5d0) * x3 + gamma(-0.3d0 - 0.5d0 * x1) + gamma(12 * x2) * 1.0d-7",
    "LOG_GAMMA": "log_gamma(x1 * x2) + log_gamma(-1.9d0 + 0.5d0 * x3) * x1",
    # The build promotes default reals to double (-freal-4-real-8), so that
    # REAL(x) loses no digits of the finite differences.
    "DPROD": "dprod(real(x1), real(x2)) * x3",
    "BESSEL_J0": "bessel_j0(3 * x1) * x2",
    "BESSEL_J1": "bessel_j1(3 * x1 + x2)",
    "BESSEL_Y0": "bessel_y0(x1 + x2)",
    "BESSEL_Y1": "bessel_y1(2 * x1 + x3)",
    "BESSEL_JN": "bessel_jn(2, x1 + x2) + bessel_jn(0, x3)",
    "BESSEL_YN": "bessel_yn(3, x1 + x2 + x3)",
    "SCALE": "scale(x1 * x2, 3) + scale(x3, -2)",
    "FRACTION": "fraction(x1 * 8 + x2)",
    "SET_EXPONENT": "set_exponent(x1 + x2, 2) * x3",
    "RRSPACING": "rrspacing(x1 * x2) * 1.0d-15",
    "NEAREST": "nearest(x1 * x2, 1.0d0) + nearest(x3, -1.0d0)",
    "SPACING": "x1 * spacing(x2) * 1.0d15",
    "ABS": "abs(x1 - x2) + abs(x3)",
    "SIGN": "sign(x1, x2 - 0.5d0) + sign(x3, -1.0d0)",
    "DIM": "dim(x1, x2) + dim(x3, 0.9d0)",
    "MOD": "mod(x1 * 7, x2)",
    "MAX": "max(x1, x2) + max(x1, x2 * x3, 0.3d0 * x3)",
    "MIN": "min(x1, x2) + min(x1 * x2, x3, 0.5d0)",
    "MODULO": "modulo(x1 * 7, x2) + modulo(-x1 * 5, x3)",
    "MERGE": "merge(x1 * x2, x3 ** 2, x1 > x2) + merge(x1, x2 * x3, x1 < x2)"
             " + merge(mask=x1 < x2, fsource=x3, tsource=x1 * x3)",
    "REAL": "real(x1 * x2, kind=8) + real(x3 * 4, 8)",
    "DBLE": "dble(x1) * x2",
    "AINT": "x1 * aint(10 * x2)",
    "ANINT": "x1 * anint(10 * x2)",
    "INT": "x1 * int(10 * x2) + x3 * (int(x1 * 10) / 3)",
    "NINT": "x1 * nint(10 * x2)",
    "FLOOR": "x1 * floor(10 * x2)",
    "CEILING": "x1 * ceiling(10 * x2)",
    "EPSILON": "x1 * (1 + epsilon(x2))",
    "HUGE": "x1 * log(huge(x2))",
    "TINY": "x1 + max(x2, tiny(x2))",
    "KIND": "x1 * kind(x2)",
    "PRECISION": "x1 * precision(x2)",
    "DIGITS": "x1 * digits(x2)",
    "RANGE": "x1 * range(x2)",
    # Array operations, on a(4), b(4), c(4,4).
    "SUM": "sum(a * x1) + sum(sum(c, dim=2) * b) + sum(sum(c, dim=1) * a)"
           " + sum(a * x2, mask=b > 0.5d0) + sum(sum(c * x3, dim=1, mask=c > 0.4d0) * b)",
    "PRODUCT": "product(a + 1) * x2 + sum(product(c, dim=2) * b)"
               " + product(a, mask=a > 0.5d0) * x1 + sum(product(c + x3, dim=1, mask=c > 0.5d0))",
    "DOT_PRODUCT": "dot_product(a, b * x1)",
    # A scalar adjoint (SUM(f(x)) * w) stands for an array of its value.
    "MATMUL": "sum(matmul(c, a) * b) + sum(matmul(c, c) * c) + sum(matmul(b, c) * a)"
              " + sum(matmul(c, a)) * x1 + sum(matmul(c, c)) * x2",
    "TRANSPOSE": "sum(transpose(c) * c) + x1 + sum(transpose(c)) * x2",
    "MAXVAL": "maxval(a * b) + x1 * maxval(c) + maxval(a * x2, mask=a < 0.7d0)"
              " + sum(maxval(c * x3, dim=2) * b) + sum(maxval(c, dim=1, mask=c < 0.8d0))",
    "MINVAL": "minval(a - b) * x3 + minval(c ** 2) + minval(a * x2, mask=a > 0.4d0)"
              " + sum(minval(c * x1, dim=1) * a) + sum(minval(c, dim=2, mask=c > 0.4d0))",
    "NORM2": "norm2(a * x1) + sum(norm2(c, dim=1) * b) + sum(norm2(c * x2, dim=2) * a)",
    "CSHIFT": "sum(cshift(a, 1) * b) + sum(cshift(c, -1, 2) * c)"
              " + sum(cshift(c * x1, shift=1, dim=2) * c) + sum(cshift(a, 1)) * x2",
    "EOSHIFT": "sum(eoshift(a, 1) * b) + sum(eoshift(c, -1, x1, 2) * c)"
               " + sum(eoshift(a * x2, shift=2, boundary=x3) * a)"
               " + sum(eoshift(c, 1, b * x1) * c) + sum(eoshift(c, 1, x1, 2)) * x2",
    "RESHAPE": "sum(reshape(c, [16]) * reshape(spread(a, 2, 4), [16]))"
               " + sum(reshape(a * x1, [2, 2]) ** 2) + sum(reshape(c, [3, 5]) ** 2)"
               " + sum(reshape(c, [3, 5])) * x2",
    "PACK": "sum(pack(a, a > 0.5d0) * x1) + sum(pack(c, c > b(1)) ** 2)"
            " + sum(pack(a, b > 0.5d0, b * x2) ** 2) + sum(pack(c, c > 0.5d0)) * x3"
            # a scalar mask (PACK(c, .true.) flattens c), true and false
            " + sum(pack(c * x1, .true.) * reshape(c, [16])) + sum(pack(a, x2 > 2d0) ** 2)"
            " + sum(pack(a * x3, x2 < 2d0, b) ** 3)",
    "UNPACK": "sum(unpack(a * x1, b > 0.5d0, b) ** 2) + sum(unpack(b, a > 0.5d0, x3) * a)"
              " + sum(unpack(reshape(c, [16]), c > 0.6d0, c * x2) * c)"
              " + sum(unpack(a, b > 0.5d0, b)) * x1",
    "SPREAD": "sum(spread(a, 1, 4) * c) + sum(spread(b * x1, 2, 4) * c)"
              " + sum(spread(a, 2, 3)) * x2",
    "SIZE": "x1 * size(a) + x2 * size(c, 2)",
    "LBOUND": "x1 * lbound(a, 1)",
    "UBOUND": "x1 * ubound(c, 2)",
    "SHAPE": "x1 * sum(shape(c))",
}

# Intrinsics passive by nature, next to active values (no rule: the
# derivative must flow around them, not through them).
PASSIVE_ROWS = {
    "EXPONENT": "sum(a) * exponent(x1)",
    "COUNT": "count(a > 0.5d0) * x2 + x1",
    "MAXLOC": "maxloc(a * x1, dim=1) * x3",
    "ANY": "merge(x1, x2, any(a > x3))",
}

# Points chosen away from kinks of ABS/SIGN/DIM/MAX/MIN and jumps of
# INT/NINT/FLOOR/CEILING/MOD, and without ties in the arrays.
POINT = (0.61, 0.37, 0.83)
DIRECTION = (0.7, -0.4, 0.9)
N = 4


def test_every_rule_has_a_row():
    assert set(RULES) == set(ROWS)


def test_passive_rows_are_passive():
    assert set(PASSIVE_ROWS) <= intrinsics.PASSIVE


def test_every_intrinsic_is_classified_once():
    """A rule, passive by nature, unsupported (an error when active) or a
    subroutine: an intrinsic in no class would pass derivatives silently."""
    classes = [set(RULES), set(intrinsics.PASSIVE), set(intrinsics.UNSUPPORTED),
               set(intrinsics.SUBROUTINES)]
    everything = {i.name for i in IntrinsicCall.Intrinsic}
    operators = {"PLUS", "MINUS", "ADD", "SUB", "MUL", "DIV", "POW"}
    assert set().union(*classes) == everything | operators
    for i, one in enumerate(classes):
        for other in classes[i + 1:]:
            assert not one & other, one & other


def test_argument_names_follow_the_standard():
    assert intrinsics.argument_names("SUM", [None, "mask"]) == ["array", "mask"]
    assert intrinsics.argument_names("MAXVAL", [None, None, None]) == ["array", "dim", "mask"]
    assert intrinsics.argument_names("EOSHIFT", [None, None, "dim"]) == \
        ["array", "shift", "dim"]
    assert intrinsics.argument_names("MAX", [None, None]) == [None, None]
    names = intrinsics.argument_names("ATAN2", ["x", "y"])
    assert [names[i] for i in intrinsics.canonical_order("ATAN2", names)] == ["y", "x"]


def _module(name, expression):
    expression = expression.replace(" + ", " &\n              + ")  # free-form lines <= 132
    return textwrap.dedent(f"""\
        module row_{name.lower()}
          implicit none
        contains
          subroutine f(x1, x2, x3, a, b, c, y)
            real(kind=8), intent(in) :: x1, x2, x3, a({N}), b({N}), c({N}, {N})
            real(kind=8), intent(out) :: y
            y = {expression}
          end subroutine f
        end module row_{name.lower()}
        """)


def _driver(names):
    # All inputs live in one vector v = (x1, x2, x3, a, b, c) so that the
    # dot-product test is a single sum.
    size = 3 + 2 * N + N * N
    lines = ["program rows", "  implicit none", "  integer :: i",
             f"  real(kind=8) :: v({size}), vd({size}), va({size}), y, yp, ym, h, ad, fd",
             f"  real(kind=8) :: x(3), a({N}), b({N}), c({N}, {N})",
             f"  real(kind=8) :: xa(3), aa({N}), ba({N}), ca({N}, {N})",
             f"  do i = 1, {size}",
             "    v(i) = 0.3d0 + 0.6d0 * modulo(sqrt(2.0d0) * i * i, 1.0d0)",
             "    vd(i) = cos(1.3d0 * i)",
             "  end do",
             f"  v(1:3) = [{', '.join(f'{p}d0' for p in POINT)}]",
             f"  vd(1:3) = [{', '.join(f'{p}d0' for p in DIRECTION)}]", "  h = 1.0d-6"]
    for name in names:
        mod = f"row_{name.lower()}"
        lines += [
            "  block",
            f"    use {mod}, only: f",
            f"    use {mod}_ad, only: f_rev",
            "    real(kind=8) :: ya",
            "    va = 0.25d0",
            "    ya = 1.0d0",
            "    call split(v, x, a, b, c)",
            "    call split(va, xa, aa, ba, ca)",
            "    call f_rev(x(1), xa(1), x(2), xa(2), x(3), xa(3), a, aa, b, ba, c, ca, y, ya)",
            "    ad = sum((xa - 0.25d0) * vd(1:3)) + sum((aa - 0.25d0) * a_of(vd)) &",
            "       + sum((ba - 0.25d0) * b_of(vd)) + sum((ca - 0.25d0) * c_of(vd))",
            "    call split(v + h * vd, x, a, b, c)",
            "    call f(x(1), x(2), x(3), a, b, c, yp)",
            "    call split(v - h * vd, x, a, b, c)",
            "    call f(x(1), x(2), x(3), a, b, c, ym)",
            "    fd = (yp - ym) / (2 * h)",
            f"    print '(a, 1x, es24.16, 1x, es24.16)', '{name}', ad, fd",
            "  end block",
        ]
    lines += [
        "contains",
        "  subroutine split(w, x, a, b, c)",
        f"    real(kind=8), intent(in) :: w({size})",
        f"    real(kind=8), intent(out) :: x(3), a({N}), b({N}), c({N}, {N})",
        "    x = w(1:3)",
        "    a = a_of(w)",
        "    b = b_of(w)",
        "    c = c_of(w)",
        "  end subroutine split",
        "  function a_of(w)",
        f"    real(kind=8), intent(in) :: w({size})",
        f"    real(kind=8) :: a_of({N})",
        f"    a_of = w(4:{3 + N})",
        "  end function a_of",
        "  function b_of(w)",
        f"    real(kind=8), intent(in) :: w({size})",
        f"    real(kind=8) :: b_of({N})",
        f"    b_of = w({4 + N}:{3 + 2 * N})",
        "  end function b_of",
        "  function c_of(w)",
        f"    real(kind=8), intent(in) :: w({size})",
        f"    real(kind=8) :: c_of({N}, {N})",
        f"    c_of = reshape(w({4 + 2 * N}:), [{N}, {N}])",
        "  end function c_of",
    ]
    lines.append("end program rows")
    return "\n".join(lines) + "\n"


def test_rules_match_finite_differences(tmp_path):
    rows = dict(ROWS, **{f"PASSIVE_{n}": e for n, e in PASSIVE_ROWS.items()})
    names = sorted(rows)
    sources, outputs = [], []
    for name in names:
        src = tmp_path / f"row_{name.lower()}.f90"
        src.write_text(_module(name, rows[name]))
        text, _, _ = differentiate_file(str(src), ["y"], ["x1", "x2", "x3", "a", "b", "c"],
                                        SplitReversalSchedule())
        out = tmp_path / f"row_{name.lower()}_ad.f90"
        out.write_text(text)
        sources.append(src.name)
        outputs.append(out.name)
    (tmp_path / "rows.f90").write_text(_driver(names))
    files = [f for pair in zip(sources, outputs) for f in pair] + ["rows.f90"]
    build = subprocess.run(["gfortran", "-O0", "-fcheck=all", "-freal-4-real-8", "-o", "rows"]
                           + files,
                           cwd=tmp_path, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    run = subprocess.run(["./rows"], cwd=tmp_path, capture_output=True, text=True,
                         check=True)
    results = {}
    for line in run.stdout.splitlines():
        name, ad, fd = line.split()
        results[name] = (float(ad), float(fd))
    assert set(results) == set(names)
    bad = {}
    for name, (ad, fd) in results.items():
        scale = max(abs(ad), abs(fd), 1e-12)
        if abs(ad - fd) / scale >= 1e-6:
            bad[name] = (ad, fd)
    assert not bad, f"adjoint vs finite differences: {bad}"


def test_norm2_at_zero_takes_the_subgradient_without_overflow(tmp_path):
    """NORM2 of a zero vector has no derivative; its adjoint is the
    subgradient 0, computed as x/max(norm, tiny) before the seed is applied
    (seed/tiny overflowed: a floating-point trap, fuzz L3 seed 700090)."""
    (tmp_path / "gust.f90").write_text(textwrap.dedent("""\
        module gust_mod
          implicit none
          integer, parameter :: wp = kind(1.0d0)
        contains
          subroutine gust_factor(n, u, gust)
            integer, intent(in) :: n
            real(wp), intent(in) :: u(n)
            real(wp), intent(out) :: gust(n)
            real(wp) :: spread
            spread = norm2(u - sum(u)/n)
            gust = 40.0_wp*u*(1.0_wp + 3.0_wp*spread)
          end subroutine gust_factor
        end module gust_mod
        """))
    (tmp_path / "drive.f90").write_text(textwrap.dedent("""\
        program drive
          use gust_mod
          use gust_mod_ad
          implicit none
          real(wp) :: u(6), u_adj(6), gust(6), gust_adj(6)
          u = 7.5_wp          ! a calm, uniform profile: spread = 0
          u_adj = 0
          gust_adj = 1.0e3_wp
          call gust_factor_rev(6, u, u_adj, gust, gust_adj)
          print *, maxval(abs(u_adj - 4.0e4_wp))
        end program drive
        """))
    text, _, _ = differentiate_file(str(tmp_path / "gust.f90"), ["gust"], ["u"],
                                    SplitReversalSchedule())
    (tmp_path / "gust_ad.f90").write_text(text)
    build = subprocess.run(["gfortran", "-ffpe-trap=invalid,zero,overflow", "-o", "drive",
                            "gust.f90", "gust_ad.f90", "drive.f90"], cwd=tmp_path,
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    run = subprocess.run(["./drive"], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert float(run.stdout) < 1e-9


# PACK(field, .true.) flattens a field (then weighted by a vector of the
# flattened length); PACK with a scalar flag keeps all elements or none.
PACK_FLATTEN = """\
! adfort: routine=misfit dep=cost indep=field
! adfort: init nx=4 ny=3 field=0.5:1.5 w=0.1:1.0
module pack_flatten
  implicit none
contains
  subroutine misfit(nx, ny, field, w, cost)
    integer, intent(in) :: nx, ny
    real(8), intent(in) :: field(nx, ny), w(nx*ny)
    real(8), intent(out) :: cost
    real(8) :: flat(nx*ny)
    flat = pack(field**2, .true.)
    cost = sum(w*flat*field(1, 1)) + sum(pack(field(:, 1), nx > 2)**3)
    cost = cost + sum(pack(field(:, 2), nx > 9, field(:, 3))**2)
  end subroutine misfit
end module pack_flatten
"""


@pytest.mark.parametrize("schedule", ["split", "joint"])
def test_pack_with_a_scalar_mask(schedule, tmp_path):
    harness.check_source(tmp_path, "pack_flatten.f90", PACK_FLATTEN, schedule)
