'''Tests for adfort.writer: generated text means the tree it came from.

Random expression trees (nested and right-associated powers, negations in
every position, mixed operators, comparisons and logicals) are written,
read back with PSyclone's FortranReader and evaluated exactly (rationals,
integer exponents): the text must evaluate to the tree's value.
'''

import random
from fractions import Fraction

import pytest

from psyclone.psyir.frontend.fortran import FortranReader
from psyclone.psyir.nodes import (
    Assignment, BinaryOperation, Literal, Reference, UnaryOperation)
from psyclone.psyir.symbols import DataSymbol, ScalarType, SymbolTable

from adfort.writer import Writer, write

BOp = BinaryOperation.Operator
UOp = UnaryOperation.Operator
REAL_T = ScalarType(ScalarType.Intrinsic.REAL, ScalarType.Precision.UNDEFINED)
INT_T = ScalarType(ScalarType.Intrinsic.INTEGER, ScalarType.Precision.UNDEFINED)
BOOL_T = ScalarType(ScalarType.Intrinsic.BOOLEAN, ScalarType.Precision.UNDEFINED)
VALUES = {"a": Fraction(3, 2), "b": Fraction(-5, 4), "c": Fraction(7, 3),
          "p": True, "q": False}


@pytest.fixture(name="table", scope="module")
def fixture_table():
    table = SymbolTable()
    for name in ("a", "b", "c"):
        table.add(DataSymbol(name, REAL_T))
    for name in ("p", "q"):
        table.add(DataSymbol(name, BOOL_T))
    return table


def evaluate(node):
    '''Exact value of an expression tree (Fortran semantics; integer
    exponents only).'''
    if isinstance(node, Literal):
        if node.datatype.intrinsic == ScalarType.Intrinsic.BOOLEAN:
            return node.value.lower() == "true"
        return Fraction(node.value.replace("d", "e"))
    if isinstance(node, Reference):
        return VALUES[node.symbol.name.lower()]
    if isinstance(node, UnaryOperation):
        value = evaluate(node.children[0])
        return {UOp.MINUS: lambda: -value, UOp.PLUS: lambda: value,
                UOp.NOT: lambda: not value}[node.operator]()
    left, right = (evaluate(c) for c in node.children)
    op = node.operator
    if op == BOp.POW:
        if right.denominator != 1 or abs(right) > 12 or (left == 0 and right < 0):
            # An integer power with a negative exponent (integer division
            # in Fortran) or a huge one: not evaluated here.
            raise ArithmeticError("exponent out of range")
        return left ** int(right)
    if op == BOp.DIV and right == 0:
        raise ArithmeticError("division by zero")
    return {
        BOp.ADD: lambda: left + right, BOp.SUB: lambda: left - right,
        BOp.MUL: lambda: left * right, BOp.DIV: lambda: left / right,
        BOp.EQ: lambda: left == right, BOp.NE: lambda: left != right,
        BOp.LT: lambda: left < right, BOp.LE: lambda: left <= right,
        BOp.GT: lambda: left > right, BOp.GE: lambda: left >= right,
        BOp.AND: lambda: left and right, BOp.OR: lambda: left or right,
        BOp.EQV: lambda: left == right, BOp.NEQV: lambda: left != right,
    }[op]()


def _int_literal(rng):
    return Literal(str(rng.randint(1, 3)), INT_T)


def exponent(rng, depth):
    '''An integer-valued expression (small, maybe negative, maybe a power).'''
    choice = rng.random()
    if depth <= 0 or choice < 0.4:
        return _int_literal(rng)
    if choice < 0.6:
        return UnaryOperation.create(UOp.MINUS, exponent(rng, depth - 1))
    if choice < 0.75:
        return BinaryOperation.create(BOp.POW, Literal(str(rng.randint(1, 2)), INT_T),
                                      exponent(rng, depth - 1))
    op = rng.choice([BOp.ADD, BOp.SUB, BOp.MUL])
    return BinaryOperation.create(op, exponent(rng, depth - 1), exponent(rng, depth - 1))


def arithmetic(rng, depth):
    '''A real expression tree of at most `depth` levels.'''
    choice = rng.random()
    if depth <= 0 or choice < 0.15:
        if rng.random() < 0.7:
            return Reference(rng.choice([DataSymbol(n, REAL_T) for n in "abc"]))
        return Literal(f"{rng.randint(1, 4)}.0", REAL_T)
    if choice < 0.3:
        return UnaryOperation.create(rng.choice([UOp.MINUS, UOp.MINUS, UOp.PLUS]),
                                     arithmetic(rng, depth - 1))
    if choice < 0.5:
        return BinaryOperation.create(BOp.POW, arithmetic(rng, depth - 1),
                                      exponent(rng, 2))
    op = rng.choice([BOp.ADD, BOp.SUB, BOp.MUL, BOp.DIV])
    return BinaryOperation.create(op, arithmetic(rng, depth - 1), arithmetic(rng, depth - 1))


def logical(rng, depth):
    '''A logical expression tree: comparisons joined by logical operators.'''
    choice = rng.random()
    if depth <= 0 or choice < 0.3:
        if rng.random() < 0.3:
            return Reference(DataSymbol(rng.choice("pq"), BOOL_T))
        op = rng.choice([BOp.EQ, BOp.NE, BOp.LT, BOp.LE, BOp.GT, BOp.GE])
        return BinaryOperation.create(op, arithmetic(rng, 2), arithmetic(rng, 2))
    if choice < 0.45:
        return UnaryOperation.create(UOp.NOT, logical(rng, depth - 1))
    op = rng.choice([BOp.AND, BOp.OR, BOp.EQV, BOp.NEQV])
    return BinaryOperation.create(op, logical(rng, depth - 1), logical(rng, depth - 1))


def _check_round_trip(tree, table):
    try:
        expected = evaluate(tree)
    except ArithmeticError:
        return False
    text = write(tree)
    back = FortranReader().psyir_from_expression(text, table)
    assert evaluate(back) == expected, text
    return True


@pytest.mark.parametrize("seed", range(8))
def test_random_arithmetic_round_trip(seed, table):
    rng = random.Random(seed)
    checked = sum(_check_round_trip(arithmetic(rng, 5), table) for _ in range(100))
    assert checked > 60


@pytest.mark.parametrize("seed", range(4))
def test_random_logical_round_trip(seed, table):
    rng = random.Random(100 + seed)
    checked = sum(_check_round_trip(logical(rng, 4), table) for _ in range(60))
    assert checked > 40


def _ref(name):
    return Reference(DataSymbol(name, REAL_T))


def _lit(text):
    return Literal(text, INT_T if "." not in text else REAL_T)


@pytest.mark.parametrize("tree, text", [
    # (x**3)**2: ** is right-associative, so the left power needs parentheses.
    (lambda: BinaryOperation.create(BOp.POW, BinaryOperation.create(
        BOp.POW, _ref("x"), _lit("3")), _lit("2")), "(x ** 3) ** 2"),
    (lambda: BinaryOperation.create(BOp.POW, _ref("a"), BinaryOperation.create(
        BOp.POW, _ref("b"), _ref("c"))), "a ** b ** c"),
    (lambda: BinaryOperation.create(BOp.POW, _ref("x"), UnaryOperation.create(
        UOp.MINUS, _lit("2"))), "x ** (-2)"),
    (lambda: BinaryOperation.create(BOp.MUL, _ref("a"), UnaryOperation.create(
        UOp.MINUS, _ref("b"))), "a * (-b)"),
    (lambda: UnaryOperation.create(UOp.MINUS, BinaryOperation.create(
        BOp.ADD, _ref("a"), _ref("b"))), "-(a + b)"),
    (lambda: BinaryOperation.create(BOp.POW, UnaryOperation.create(
        UOp.MINUS, _ref("a")), _lit("2")), "(-a) ** 2"),
    (lambda: UnaryOperation.create(UOp.MINUS, BinaryOperation.create(
        BOp.POW, _ref("a"), _lit("2"))), "-a ** 2"),
    (lambda: BinaryOperation.create(BOp.SUB, _ref("a"), BinaryOperation.create(
        BOp.SUB, _ref("b"), _ref("c"))), "a - (b - c)"),
    (lambda: BinaryOperation.create(BOp.DIV, _ref("a"), BinaryOperation.create(
        BOp.MUL, _ref("b"), _ref("c"))), "a / (b * c)"),
    (lambda: BinaryOperation.create(BOp.ADD, _ref("a"), BinaryOperation.create(
        BOp.MUL, UnaryOperation.create(UOp.MINUS, _ref("b")), _ref("c"))),
     "a + (-b * c)"),
    (lambda: BinaryOperation.create(BOp.SUB, BinaryOperation.create(
        BOp.MUL, UnaryOperation.create(UOp.MINUS, _ref("b")), _ref("c")), _ref("a")),
     "-b * c - a"),
])
def test_parenthesised_forms(tree, text):
    assert write(tree()) == text


def test_atan_of_a_power_regression():
    '''1/(1 + (x**3)**2), the partial of ATAN(x**3): PSyclone 3.3.1's own
    writer drops the parentheses (x**3**2 is x**9).'''
    x = _ref("x")
    inner = BinaryOperation.create(BOp.POW, x, _lit("3"))
    square = BinaryOperation.create(BOp.POW, inner, _lit("2"))
    denominator = BinaryOperation.create(BOp.ADD, _lit("1"), square)
    tree = BinaryOperation.create(BOp.DIV, _lit("1"), denominator)
    assert write(tree) == "1 / (1 + (x ** 3) ** 2)"


def test_statement_and_explicit_grouping_kept(table):
    '''Parentheses of the source survive (the recording copy evaluates in
    the original order).'''
    expr = FortranReader().psyir_from_expression("(a + b) + c", table)
    assign = Assignment.create(Reference(table.lookup("a")), expr)
    assert Writer()(assign).strip() == "a = (a + b) + c"


@pytest.mark.parametrize("seed", range(4))
def test_simplified_trees_keep_their_value_through_the_writer(seed, table):
    '''adfort.simplify rewrites trees, never text: what it returns, written
    and read back, has the value of what it was given.'''
    from adfort.simplify import simplify
    rng = random.Random(200 + seed)
    checked = 0
    for _ in range(60):
        tree = arithmetic(rng, 5)
        try:
            expected = evaluate(tree)
        except ArithmeticError:
            continue
        text = write(simplify(tree.copy()))
        assert evaluate(FortranReader().psyir_from_expression(text, table)) == expected, text
        checked += 1
    assert checked > 30


def test_long_subscript_lines_are_broken_under_the_limit(workdir):
    """A line whose only spaces are in places that do not fit (subscripts
    written with bare commas) is broken after a comma or a parenthesis, never
    inside ``(/ … /)``, and compiles (fuzz L4 seed 90139: a 132-column line)."""
    import subprocess
    from adfort.layout import LINE_LIMIT, wrap
    name = "limiter_argument_1"
    line = (f"        limiter_value_1(element,element_1) = lim({name}(element,LBOUND({name}, "
            "dim=2) + (element_1 - 1)), 1.0)")
    assert len(line) > LINE_LIMIT
    src = ("module m\ncontains\n  real function lim(a, b)\n    real, intent(in) :: a, b\n"
           "    lim = a + b\n  end function lim\n  subroutine s(lv, " + name + ")\n"
           f"    real, intent(inout) :: lv(2,2), {name}(2,2)\n    real :: limiter_value_1(2,2)\n    integer :: element, element_1\n"
           "    do element = 1, 2\n    do element_1 = 1, 2\n" + line + "\n    end do\n"
           "    end do\n    lv = limiter_value_1\n    lv(1,1) = lv(1,1) + sum((/1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, "
           "9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0/))\n"
           "  end subroutine s\nend module m\n")
    text = wrap(src)
    assert all(len(row) <= LINE_LIMIT for row in text.splitlines()), text
    path = workdir / "wrapped.f90"
    path.write_text(text)
    subprocess.run(["gfortran", "-std=f2008", "-Werror", "-c", str(path), "-o",
                    str(workdir / "wrapped.o")], check=True, cwd=workdir)
