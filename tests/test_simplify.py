'''Tests for adfort.simplify (algebraic simplification of PSyIR).'''

import re

import pytest

from psyclone.psyir.backend.fortran import FortranWriter
from psyclone.psyir.frontend.fortran import FortranReader
from psyclone.psyir.nodes import (
    Assignment, BinaryOperation, Call, Literal, Reference, Routine,
    UnaryOperation)
from psyclone.psyir.symbols import (
    ArrayType, DataSymbol, ScalarType, SymbolTable)

import adfort.simplify as simplify_module
from adfort.simplify import RULES, simplify, simplify_statements

REAL = ScalarType.Intrinsic.REAL
INTEGER = ScalarType.Intrinsic.INTEGER


@pytest.fixture(name="table")
def fixture_table():
    '''Symbols: wp = 8 (kind parameter); a, b, c, x, y real(wp); s default
    real; d double precision; i, j default integers; k8 integer(8);
    arr, out real(wp) arrays; hk a kind parameter of unknown value;
    h of unknown type (e.g. imported from a module).'''
    table = SymbolTable()
    int_t = ScalarType(INTEGER, ScalarType.Precision.UNDEFINED)
    wp = DataSymbol("wp", int_t, is_constant=True,
                    initial_value=Literal("8", int_t))
    table.add(wp)
    table.add(DataSymbol("hk", int_t))
    real_wp = ScalarType(REAL, Reference(wp))
    for name in ("a", "b", "c", "x", "y"):
        table.add(DataSymbol(name, real_wp))
    table.add(DataSymbol("s", ScalarType(REAL,
                                         ScalarType.Precision.UNDEFINED)))
    table.add(DataSymbol("d", ScalarType(REAL, ScalarType.Precision.DOUBLE)))
    table.add(DataSymbol("i", int_t))
    table.add(DataSymbol("j", int_t))
    table.add(DataSymbol("k8", ScalarType(INTEGER, 8)))
    for name in ("arr", "out"):
        table.add(DataSymbol(name, ArrayType(real_wp, [10])))
    table.new_symbol("h")          # generic Symbol: unknown type
    return table


def parse(text, table):
    return FortranReader().psyir_from_expression(text, table)


def fortran(node):
    return FortranWriter()(node).strip()


def simp(text, table, n_times=5):
    return fortran(simplify(parse(text, table), n_times))


def check(cases, table):
    for source, expected in cases:
        assert simp(source, table) == expected, source


# --------------------------------------------------------------- identities

@pytest.mark.parametrize("source, expected", [
    ("x*1.0_wp", "x"),
    ("1.0_wp*x", "x"),
    ("x/1.0_wp", "x"),
    ("x*1", "x"),
    ("1*x", "x"),
    ("x/1", "x"),
    ("i*1", "i"),
    ("1*i", "i"),
    ("i/1", "i"),
    ("x**1", "x"),
    ("i**1", "i"),
    ("x+0", "x"),
    ("0+x", "x"),
    ("x-0", "x"),
    ("x+0.0_wp", "x"),
    ("0.0_wp+x", "x"),
    ("i+0", "i"),
    ("k8+0", "k8"),
    ("s*1.0", "s"),
    ("s*1.0e0", "s"),
    ("d*1.0", "d"),          # double precision absorbs a default real
    ("d*1.0d0", "d"),
    ("d+0.0d0", "d"),
    ("x*1.0_wp + 0", "x"),
    ("(a + b)*1", "a + b"),
    ("sin(x)*1.0_wp", "SIN(x)"),
])
def test_identities(table, source, expected):
    assert simp(source, table) == expected


@pytest.mark.parametrize("source", [
    "i*1.0",          # integer -> real: i*1.0 is real
    "i/1.0",
    "1.0*i",
    "i+0.0",
    "x*1.0",          # real(wp) * default real: kind relation unknown
    "x*1.0d0",        # wp is not known to be double precision
    "s*1.0d0",        # default real * double is double
    "s+0.0d0",
    "x**1.0",
    "i**1.0",
    "i*1_8",          # default integer * integer(8) is integer(8)
    "x*1.0_8",        # kind wp and kind 8 are different names
])
def test_identities_that_would_change_type(table, source):
    assert simp(source, table) == fortran(parse(source, table))


def test_identity_unknown_type(table):
    # A default integer never promotes the other operand: safe.
    assert simp("h*1", table) == "h"
    assert simp("h+0", table) == "h"
    assert simp("0-h", table) == "-h"
    # A real literal might (h could be an integer).
    assert simp("h*1.0", table) == "h * 1.0"
    assert simp("h+0.0_wp", table) == "h + 0.0_wp"


def test_zero_minus(table):
    check([("0-x", "-x"), ("0-i", "-i"), ("0.0_wp-x", "-x"),
           ("0-(a+b)", "-(a + b)"), ("0.0-i", "0.0 - i")], table)


# --------------------------------------------------------------------- zero

@pytest.mark.parametrize("source, expected", [
    ("0*x", "0.0_wp"),
    ("x*0", "0.0_wp"),
    ("0/x", "0.0_wp"),
    ("0.0_wp*x", "0.0_wp"),
    ("0*i", "0"),
    ("i*0", "0"),
    ("0/i", "0"),
    ("0.0*i", "0.0"),        # real: keeps the literal's real type
    ("0*d", "0.0d0"),
    ("0*s", "0.0"),
    ("0*k8", "0_8"),
    ("0.0d0*s", "0.0d0"),
    ("0*(a+b*c)", "0.0_wp"),
    ("0*sin(x)", "0.0_wp"),  # intrinsics are pure
    ("x + 0*y", "x"),
    ("x - y*0", "x"),
    ("x*(0*y)", "0.0_wp"),
])
def test_zero_products(table, source, expected):
    assert simp(source, table) == expected


@pytest.mark.parametrize("source", [
    "x/0",            # division by zero is not simplified
    "0*f(x)",         # user function: may have side effects
    "f(x)*0",
    "0/f(x)",
    "0*h",            # unknown type, not the RHS of an assignment
    "0.0*x",          # real(wp)*default real: result kind unknown
    "0.0_wp*arr(:)",  # array: a scalar 0 would change the shape
])
def test_zero_products_not_simplified(table, source):
    assert simp(source, table) == fortran(parse(source, table))


def _assignment(text, table):
    return FortranReader().psyir_from_statement(text, table)


def test_zero_product_unknown_type_in_assignment(table):
    assign = _assignment("y = 0*h", table)
    simplify(assign.rhs)
    assert fortran(assign) == "y = 0"
    # Not at the top of the RHS: the integer 0 could change the meaning of
    # the division (h may be real), so nothing is done.
    assign = _assignment("y = (0*h + 3)/2", table)
    simplify(assign.rhs)
    assert fortran(assign) == "y = (0 * h + 3) / 2"


def test_zero_product_arrays(table):
    assign = _assignment("out(:) = 0.0_wp*arr(:) + 0*arr(:)", table)
    simplify(assign.rhs)
    assert fortran(assign) == "out(:) = 0.0_wp"
    assign = _assignment("out(:) = y + 0.0_wp*arr(:)", table)
    simplify(assign.rhs)
    assert fortran(assign) == "out(:) = y"
    # Inside an intrinsic call the shape matters.
    assign = _assignment("y = sum(0.0_wp*arr(:))", table)
    simplify(assign.rhs)
    assert fortran(assign) == "y = SUM(0.0_wp * arr(:))"
    # Array element: a scalar.
    assert simp("0*arr(i)", table) == "0.0_wp"


# -------------------------------------------------------------------- power

@pytest.mark.parametrize("source, expected", [
    ("x**0", "1.0_wp"),
    ("i**0", "1"),
    ("d**0", "1.0d0"),
    ("k8**0", "1_8"),
    ("(a+b)**0", "1.0_wp"),
    ("x**1", "x"),
    ("2**3", "8"),
    ("2**0", "1"),
    ("(-2)**3", "-8"),
    ("(-2)**2", "4"),
    ("-2**2", "-4"),
    ("2**3_8", "8_8"),
    ("2_8**40", "1099511627776_8"),
    ("2.0_wp**3", "8.0_wp"),
    ("0.5**2", "0.25"),
])
def test_power(table, source, expected):
    assert simp(source, table) == expected


@pytest.mark.parametrize("source", [
    "0**0",            # processor dependent
    "f(x)**0",         # side effects
    "h**0",            # unknown type
    "2**40",           # overflows a default integer
    "2**(-1)",         # negative exponent
    "2.0**0.5",        # real exponent
    "2**65",           # exponent too large to fold
    "0.1**2",          # 0.1 is not exact in binary
])
def test_power_not_simplified(table, source):
    assert simp(source, table) == fortran(parse(source, table))


# ---------------------------------------------------------------- negations

@pytest.mark.parametrize("source, expected", [
    ("-(-x)", "x"),
    ("-(-(-x))", "-x"),
    ("-(0)", "0"),
    ("-(0.0_wp)", "0.0_wp"),
    ("+x", "x"),
    ("a + (-b)", "a - b"),
    ("a - (-b)", "a + b"),
    ("a + (-(b + c))", "a - (b + c)"),
    ("a - (-(b - c))", "a + (b - c)"),
    ("(-a)*b", "-a * b"),
    ("a*(-b)", "-a * b"),
    ("(-a)*(-b)", "a * b"),
    ("(-a)/b", "-a / b"),
    ("a/(-b)", "-a / b"),
    ("(-a)/(-b)", "a / b"),
    ("x*(-1)", "-x"),
    ("c + a*(-b)", "c - a * b"),
    ("c - (-a)*b", "c + a * b"),
    ("(-i)/j", "-i / j"),     # exact: integer division truncates to zero
])
def test_negations(table, source, expected):
    assert simp(source, table) == expected


def test_hoisted_negation_structure(table):
    result = simplify(parse("(-a)*b", table))
    assert isinstance(result, UnaryOperation)
    assert result.operator == UnaryOperation.Operator.MINUS
    assert isinstance(result.operand, BinaryOperation)
    assert result.operand.operator == BinaryOperation.Operator.MUL
    assert fortran(result.operand) == "a * b"


def test_power_of_negation_untouched(table):
    assert simp("(-a)**2", table) == "(-a) ** 2"
    assert simp("a**(-b)", table) == "a ** (-b)"


# ------------------------------------------------------ integer constants

@pytest.mark.parametrize("source, expected", [
    ("1+2", "3"),
    ("2-3", "-1"),
    ("2*3+4", "10"),
    ("(2-3)+5", "4"),
    ("1/2", "0"),          # Fortran integer division
    ("3/2", "1"),
    ("-7/2", "-3"),        # -(7/2)
    ("(-7)/2", "-3"),      # truncation towards zero, not floor (-4)
    ("7/(-2)", "-3"),
    ("(-7)/(-2)", "3"),
    ("6/3", "2"),
    ("x*(1/2)", "0.0_wp"),     # 1/2 == 0 in Fortran
    ("i + 2*3", "i + 6"),
    ("1_8 + 2_8", "3_8"),
    ("2147483647_8 + 1_8", "2147483648_8"),
])
def test_integer_folding(table, source, expected):
    assert simp(source, table) == expected


@pytest.mark.parametrize("source", [
    "1/0",
    "1_8 + 2",                 # different kinds
    "2147483647 + 1",          # overflows a default integer
])
def test_integer_folding_not_done(table, source):
    assert simp(source, table) == fortran(parse(source, table))


def test_negative_result_is_unary_minus(table):
    result = simplify(parse("2-3", table))
    assert isinstance(result, UnaryOperation)
    assert result.operator == UnaryOperation.Operator.MINUS
    assert isinstance(result.operand, Literal)
    assert result.operand.value == "1"
    result = simplify(parse("1.0_wp - 2.5_wp", table))
    assert isinstance(result, UnaryOperation)
    assert result.operand.value == "1.5"


# ---------------------------------------------------------- real constants

@pytest.mark.parametrize("source, expected", [
    ("1/2.0", "0.5"),              # real division
    ("1.0/2", "0.5"),
    ("0.5*3.0", "1.5"),
    ("1.5_wp + 2.5_wp", "4.0_wp"),
    ("2.0_wp*3", "6.0_wp"),        # real with integer: keeps real kind
    ("3*2.0_wp", "6.0_wp"),
    ("1.0d0 + 2", "3.0d0"),
    ("3.0d0/4", "0.75d0"),
    ("1.0d0 + 1.0d0", "2.0d0"),
    ("1.0 + 2.0e0", "3.0"),        # both default real
    ("1.5e20_wp*2", "3.0e20_wp"),
    ("1.0_wp/1024", "0.0009765625_wp"),
    ("0.5**20", "9.5367431640625e-7"),
    ("2.0_wp**60", "1.152921504606846976e18_wp"),
    ("1.25_8 - 0.25_8", "1.0_8"),
    ("2049.0_wp + 2", "2051.0_wp"),  # wp = 8: double format
    ("4096.0_hk * 2", "8192.0_hk"),  # unknown kind: small exact values
    ("x*(2.0_wp*0.5_wp)", "x"),
])
def test_real_folding(table, source, expected):
    assert simp(source, table) == expected


@pytest.mark.parametrize("source", [
    "0.1 + 0.2",          # not exact in binary floating point
    "1.0/3.0",
    "0.1*3",
    "1.0_wp + 1.0_8",     # different precisions (wp vs 8)
    "1.0d0 + 1.0",        # double vs default real
    "1.0_wp + 1.0",
    "1.0/0.0",
    "2049.0_hk + 2",      # unknown kind: may be half precision
    "16777216.0 + 1",     # 2**24+1 not exact in single precision
])
def test_real_folding_not_done(table, source):
    assert simp(source, table) == fortran(parse(source, table))


def test_double_literal_storage(table):
    '''1.0d0 is stored as '1.0e0' with DOUBLE precision; folded double
    literals must keep an exponent so that they are written with 'd'.'''
    result = simplify(parse("1.0d0 + 2", table))
    assert isinstance(result, Literal)
    assert result.value == "3.0e0"
    assert result.datatype.precision == ScalarType.Precision.DOUBLE
    result = simplify(parse("x*1.0_wp", table))
    assert isinstance(result, Reference)


def test_folded_literals_are_valid(table):
    real_re = re.compile(Literal._real_value)
    for source in ("1.5_wp + 2.5_wp", "0.5**20", "2.0_wp**60", "3.0d0/4",
                   "1/2.0", "2-3", "1.0_wp-2.5_wp", "1_8 + 2_8", "0*x"):
        result = simplify(parse(source, table))
        for literal in result.walk(Literal):
            if literal.datatype.intrinsic == REAL:
                assert real_re.match(literal.value)
            assert not literal.value.startswith(("-", "+"))


def test_folded_kind_symbol_is_copied(table):
    result = simplify(parse("2.0_wp*3", table))
    precision = result.datatype.precision
    assert isinstance(precision, Reference)
    assert precision.symbol is table.lookup("wp")


# ------------------------------------------------------------ side effects

def test_user_function_calls_kept(table):
    assert simp("0*f(x)", table) == "0 * f(x)"
    assert simp("y*(f(x)*0)", table) == "y * (f(x) * 0)"
    result = simplify(parse("f(x)*1", table))    # kept, just not multiplied
    assert isinstance(result, Call) and result.routine.name == "f"
    assert simp("y + f(x*1.0_wp + 0)", table) == "y + f(x + 0)"


def test_user_call_argument_not_turned_into_variable(table):
    # f(x*1.0_wp) passes a temporary; f(x) would pass x by reference.
    assert simp("y + f(x*1.0_wp)", table) == "y + f(x * 1.0_wp)"
    assert simp("y + f(-(-x))", table) == "y + f(-(-x))"
    assert simp("y + f(2*3, 0*x)", table) == "y + f(6, 0.0_wp)"
    # Intrinsic arguments are fine.
    assert simp("sin(x*1.0_wp)", table) == "SIN(x)"
    assert simp("max(x*0, y)", table) == "MAX(0.0_wp, y)"


# ------------------------------------------------------------- n_times

def test_n_times_limits_passes(table):
    # 0 - (-x) -> -(-x) (first pass) -> x (second pass)
    assert simp("0 - (-x)", table, n_times=1) == "-(-x)"
    assert simp("0 - (-x)", table, n_times=2) == "x"
    assert simp("0 - (-x)", table, n_times=0) == "0 - (-x)"
    # Bottom-up: a parent sees its already simplified children.
    assert simp("0 - (-(0 - (-x)))", table, n_times=1) == "-(-x)"
    assert simp("0 - (-(0 - (-x)))", table, n_times=2) == "x"


def test_stops_when_nothing_changes(table, monkeypatch):
    passes = []
    original = simplify_module._pass

    def counting_pass(node):
        if node.parent is None:
            passes.append(node)
        return original(node)

    monkeypatch.setattr(simplify_module, "_pass", counting_pass)
    simplify(parse("x*1.0_wp + 0", table), n_times=5)
    assert len(passes) == 2          # one that changes, one that checks
    passes.clear()
    simplify(parse("a + b", table), n_times=5)
    assert len(passes) == 1


def test_unchanged_returns_same_node(table):
    expr = parse("a*b + c", table)
    assert simplify(expr) is expr
    literal = parse("1.5_wp", table)
    assert simplify(literal) is literal


# ------------------------------------------------------ in-place behaviour

def test_in_place_in_assignment(table):
    assign = _assignment("y = x*1.0_wp + 0", table)
    result = simplify(assign.rhs)
    assert assign.rhs is result
    assert result.parent is assign
    assert fortran(assign) == "y = x"


def test_in_place_in_sub_expression(table):
    expr = parse("a + b*1.0_wp", table)
    result = simplify(expr.children[1])
    assert expr.children[1] is result
    assert fortran(expr) == "a + b"


def test_in_place_keeps_grouping(table):
    expr = parse("c - (a + (-b))", table)
    simplify(expr.children[1])
    assert fortran(expr) == "c - (a - b)"


def test_simplify_statements(table):
    code = '''
subroutine s(x, y, arr, out, n)
  use params, only: wp, h, g
  integer, intent(in) :: n
  real(wp), intent(in) :: x, arr(n)
  real(wp), intent(inout) :: y, out(n)
  integer :: i
  y = x*1.0_wp + 0
  out(:) = 0.0_wp*arr(:)
  do i = 1*1, n + 0
    out(i*1) = out(i*1) + (-x)*arr(i)
  end do
  if (x*1.0_wp > 0.0_wp + 0) then
    y = y - (-x)
  end if
  call foo(x*1.0_wp, 2*3)
  y = g(x) + 0*g(x)
end subroutine
'''
    routine = FortranReader().psyir_from_source(code).walk(Routine)[0]
    simplify_statements(routine.children)
    lines = [line.strip() for line in fortran(routine).splitlines()]
    body = lines[lines.index("integer :: i") + 1:]
    assert [line for line in body if line] == [
        "y = x",
        "out(:) = 0.0_wp",
        "do i = 1, n, 1",
        "out(i) = out(i) - x * arr(i)",
        "enddo",
        "if (x > 0.0_wp) then",
        "y = y + x",
        "end if",
        "call foo(x * 1.0_wp, 6)",
        "y = g(x) + 0 * g(x)",
        "end subroutine s"]


def test_simplify_statements_single_node_and_n_times(table):
    assign = _assignment("y = 0 - (-x)", table)
    simplify_statements(assign, n_times=1)
    assert fortran(assign) == "y = -(-x)"
    simplify_statements([assign], n_times=1)
    assert fortran(assign) == "y = x"
    assert isinstance(assign, Assignment)


def test_rules_are_small_documented_functions():
    assert RULES
    for rule in RULES:
        assert callable(rule) and rule.__doc__


# ------------------------------------------- indicators (adfort/indicators.py)

@pytest.mark.parametrize("source, expected", [
    # The chain rule's indicators, gathered into one conversion.
    ("x * REAL(MERGE(1, 0, a > b), kind=wp) * REAL(MERGE(1, 0, c <= b), kind=wp)",
     "x * REAL(MERGE(1, 0, a > b) * MERGE(1, 0, c <= b), kind=wp)"),
    ("REAL(MERGE(1, 0, a > b), kind=wp) * REAL(MERGE(1, 0, c > b) * MERGE(1, 0, c > a), "
     "kind=wp)",
     "REAL(MERGE(1, 0, a > b) * (MERGE(1, 0, c > b) * MERGE(1, 0, c > a)), kind=wp)"),
    ("d * DBLE(MERGE(1, 0, d > 0.0d0)) * DBLE(MERGE(1, 0, d < 1.0d0))",
     "d * DBLE(MERGE(1, 0, d > 0.0d0) * MERGE(1, 0, d < 1.0d0))"),
    # Not indicators, or not the same kind: left alone (i * j may overflow).
    ("x * REAL(i, kind=wp) * REAL(j, kind=wp)", "x * REAL(i, kind=wp) * REAL(j, kind=wp)"),
    ("REAL(MERGE(2, 0, a > b), kind=wp) * REAL(MERGE(1, 0, c > b), kind=wp)",
     "REAL(MERGE(2, 0, a > b), kind=wp) * REAL(MERGE(1, 0, c > b), kind=wp)"),
    ("REAL(MERGE(1, 0, a > b), kind=wp) * REAL(MERGE(1, 0, c > b))",
     "REAL(MERGE(1, 0, a > b), kind=wp) * REAL(MERGE(1, 0, c > b))"),
])
def test_indicator_conversions_are_gathered(source, expected, table):
    assert simp(source, table) == expected


def test_limiter_partials_choose_between_integers():
    # max(0, min(2r, 1), min(r, 2)): each partial is one conversion of a
    # product of integer choices; no .AND. (gfortran branches on it) and no
    # choice between reals.
    from pathlib import Path
    from adfort.api import differentiate_file
    from adfort.schedules import SplitReversalSchedule
    bench = Path(__file__).resolve().parents[1] / "benchmarks" / "advection_limiter.f90"
    text = differentiate_file(str(bench), ["cost"], ["c", "u"], SplitReversalSchedule(),
                              routine="run", options={"inline": False})[0].lower()
    start = text.index("subroutine limiter_ret(")
    ret = text[start:text.index("end subroutine limiter_ret", start)]
    assert ".and." not in ret and "merge(1.0" not in ret, ret
    assert ret.count("real(merge(1, 0, ") == 2, ret


@pytest.mark.parametrize("source, expected", [
    ("i - 1 + 1", "i"),                 # a trip count: n - 1 + 1
    ("i + 2 - 1", "i + 1"),
    ("i - 3 + 1", "i - 2"),
    ("(i + j) - 1 + 1", "i + j"),
    ("i + 2 + 3", "i + 5"),             # exact for integers (no rounding)
])
def test_integer_offsets_combine(table, source, expected):
    assert simp(source, table) == expected


@pytest.mark.parametrize("source", [
    "x - 1.0 + 1.0",   # reals: (x - 1) + 1 rounds, x does not
    "x - 1 + 1",       # x real: its literals are converted to real
    "k8 - 1 + 1",      # integer(8) with default-kind literals
    "h - 1 + 1",       # unknown type
])
def test_integer_offsets_left_alone(table, source):
    assert simp(source, table) == fortran(parse(source, table))
