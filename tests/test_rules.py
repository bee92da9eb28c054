"""Every derivative rule, checked against central finite differences.

Each row is a scalar kernel ``y = <expression>`` of inputs x1, x2, x3
(drawn from (0.2, 0.8), where every function here is smooth); a test
asserts the rules table and the rows name the same operations, so adding
a rule without a row fails.
"""

import subprocess
import textwrap

import pytest

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
    "ATAN2": "atan2(x1, x2 - 0.5d0)",
    "SINH": "sinh(x1 * x2)",
    "COSH": "cosh(x1 - x2)",
    "TANH": "tanh(x1 / x2)",
    "ASINH": "asinh(x1 - x2)",
    "ACOSH": "acosh(1.0d0 + x1 + x2)",
    "ATANH": "atanh(x1 * x2)",
    "ERF": "erf(x1 - x2)",
    "ERFC": "erfc(x1 * x2)",
    "HYPOT": "hypot(x1, x2)",
    "ABS": "abs(x1 - x2) + abs(x3)",
    "SIGN": "sign(x1, x2 - 0.5d0) + sign(x3, -1.0d0)",
    "DIM": "dim(x1, x2) + dim(x3, 0.9d0)",
    "MOD": "mod(x1 * 7, x2)",
    "MAX": "max(x1, x2) + max(x1, x2 * x3, 0.3d0 * x3)",
    "MIN": "min(x1, x2) + min(x1 * x2, x3, 0.5d0)",
    "MODULO": "modulo(x1 * 7, x2) + modulo(-x1 * 5, x3)",
    "MERGE": "merge(x1 * x2, x3 ** 2, x1 > x2) + merge(x1, x2 * x3, x1 < x2)",
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
}

# Points chosen away from kinks of ABS/SIGN/DIM/MAX/MIN and jumps of
# INT/NINT/FLOOR/CEILING/MOD.
POINT = (0.61, 0.37, 0.83)
DIRECTION = (0.7, -0.4, 0.9)


def test_every_rule_has_a_row():
    assert set(RULES) == set(ROWS)


def _module(name, expression):
    return textwrap.dedent(f"""\
        module row_{name.lower()}
          implicit none
        contains
          subroutine f(x1, x2, x3, y)
            real(kind=8), intent(in) :: x1, x2, x3
            real(kind=8), intent(out) :: y
            y = {expression}
          end subroutine f
        end module row_{name.lower()}
        """)


def _driver(names):
    lines = ["program rows", "  implicit none",
             "  real(kind=8) :: x(3), xd(3), xa(3), y, yp, ym, h, ad, fd"]
    lines += [f"  x = [{', '.join(f'{v}d0' for v in POINT)}]",
              f"  xd = [{', '.join(f'{v}d0' for v in DIRECTION)}]", "  h = 1.0d-6"]
    for name in names:
        mod = f"row_{name.lower()}"
        lines += [
            "  block",
            f"    use {mod}, only: f",
            f"    use {mod}_ad, only: f_rev",
            "    real(kind=8) :: ya",
            "    xa = 0.25d0",
            "    ya = 1.0d0",
            "    call f_rev(x(1), xa(1), x(2), xa(2), x(3), xa(3), y, ya)",
            "    ad = sum((xa - 0.25d0) * xd)",
            "    call f(x(1) + h * xd(1), x(2) + h * xd(2), x(3) + h * xd(3), yp)",
            "    call f(x(1) - h * xd(1), x(2) - h * xd(2), x(3) - h * xd(3), ym)",
            "    fd = (yp - ym) / (2 * h)",
            f"    print '(a, 1x, es24.16, 1x, es24.16)', '{name}', ad, fd",
            "  end block",
        ]
    lines.append("end program rows")
    return "\n".join(lines) + "\n"


def test_rules_match_finite_differences(tmp_path):
    names = sorted(ROWS)
    sources, outputs = [], []
    for name in names:
        src = tmp_path / f"row_{name.lower()}.f90"
        src.write_text(_module(name, ROWS[name]))
        text, _, _ = differentiate_file(str(src), ["y"], ["x1", "x2", "x3"],
                                        SplitReversalSchedule())
        out = tmp_path / f"row_{name.lower()}_ad.f90"
        out.write_text(text)
        sources.append(src.name)
        outputs.append(out.name)
    (tmp_path / "rows.f90").write_text(_driver(names))
    files = [f for pair in zip(sources, outputs) for f in pair] + ["rows.f90"]
    build = subprocess.run(["gfortran", "-O0", "-fcheck=all", "-o", "rows"] + files,
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
