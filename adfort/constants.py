"""Numeric constants of PSyIR expressions: their exact values, whether a
value is exactly representable in a type and kind, and the literal that
writes it (used by :mod:`adfort.simplify` to fold constants without
changing a bit of what the compiled program computes)."""

from decimal import Decimal
from fractions import Fraction
from typing import Optional, Tuple

from psyclone.psyir.nodes import DataNode, Literal, Node, Reference, UnaryOperation
from psyclone.psyir.symbols import DataSymbol, ScalarType

INTEGER = ScalarType.Intrinsic.INTEGER
REAL = ScalarType.Intrinsic.REAL
UNDEFINED = ScalarType.Precision.UNDEFINED
SINGLE = ScalarType.Precision.SINGLE
DOUBLE = ScalarType.Precision.DOUBLE
UOp = UnaryOperation.Operator


def _new_type(stype: ScalarType) -> ScalarType:
    precision = stype.precision
    return ScalarType(stype.intrinsic,
                      precision.copy() if isinstance(precision, DataNode) else precision)


def literal_value(node: Node) -> Optional[Fraction]:
    '''Exact value of an integer/real scalar Literal, else None.'''
    if not isinstance(node, Literal) or not isinstance(node.datatype,
                                                       ScalarType):
        return None
    intrinsic = node.datatype.intrinsic
    if intrinsic not in (INTEGER, REAL):
        return None
    # (Reading a number through Decimal and Fraction costs more than the
    # rest of a rule: each text is read once.)
    key = (intrinsic is INTEGER, node.value)
    value = _VALUES.get(key)
    if value is None:
        value = _VALUES[key] = Fraction(int(node.value)) if intrinsic is INTEGER \
            else Fraction(Decimal(node.value))
    return value


_VALUES = {}    # (integer?, literal text): its exact value


def is_literal_value(node: Node, value: int) -> bool:
    return literal_value(node) == value


def numeric_constant(node: Node) -> Optional[Tuple[Fraction, ScalarType]]:
    '''(value, type) of a numeric literal, possibly under unary +/-.'''
    if isinstance(node, UnaryOperation) and node.operator in (UOp.MINUS,
                                                              UOp.PLUS):
        inner = numeric_constant(node.operand)
        if inner is None:
            return None
        sign = -1 if node.operator == UOp.MINUS else 1
        return sign * inner[0], inner[1]
    value = literal_value(node)
    if value is None:
        return None
    return value, node.datatype


def kind_number(prec) -> Optional[int]:
    '''Integer kind of a precision, resolving ``wp``-style named constants
    initialised with an integer literal.'''
    if isinstance(prec, int):
        return prec
    symbol = prec.symbol if isinstance(prec, Reference) else prec
    if isinstance(symbol, DataSymbol) and symbol.is_constant:
        value = literal_value(symbol.initial_value)
        if value is not None and value.denominator == 1:
            return int(value)
    return None


#: (mantissa bits, minimum exponent, maximum exponent) of binary formats.
_HALF = (11, -14, 15)
_REAL_FORMATS = {4: (24, -126, 127), 8: (53, -1022, 1023),
                 10: (64, -16382, 16383), 16: (113, -16382, 16383)}


def real_format(prec) -> Tuple[int, int, int]:
    '''Smallest binary format a real of this precision may have.'''
    if prec in (UNDEFINED, SINGLE):
        return _REAL_FORMATS[4]
    if prec == DOUBLE:
        return _REAL_FORMATS[8]
    return _REAL_FORMATS.get(kind_number(prec), _HALF)


def integer_bits(prec) -> int:
    '''Smallest plausible storage size in bits of an integer kind.'''
    if prec in (UNDEFINED, SINGLE):
        return 32
    if prec == DOUBLE:
        return 64
    kind = kind_number(prec)
    return 8 * kind if kind in (1, 2, 4, 8, 16) else 8


def fits(value: Fraction, stype: ScalarType) -> bool:
    '''Whether value is exactly representable in a variable of stype.'''
    if stype.intrinsic == INTEGER:
        bits = integer_bits(stype.precision)
        return (value.denominator == 1 and
                -(2 ** (bits - 1)) <= value < 2 ** (bits - 1))
    if value == 0:
        return True
    mant_bits, emin, emax = real_format(stype.precision)
    den = value.denominator
    if den & (den - 1):
        return False            # not a dyadic rational: not exact in binary
    mantissa, exponent = abs(value.numerator), -(den.bit_length() - 1)
    while mantissa % 2 == 0:
        mantissa //= 2
        exponent += 1
    top = exponent + mantissa.bit_length() - 1
    return mantissa.bit_length() <= mant_bits and emin <= top <= emax


def format_real(value: Fraction, prec) -> str:
    '''PSyIR literal string of a non-negative dyadic rational.'''
    if value == 0:
        text = "0.0"
    else:
        twos = value.denominator.bit_length() - 1     # den == 2**twos
        # Built from a string so that no context rounding can occur.
        dec = Decimal(f"{value.numerator * 5 ** twos}e-{twos}")
        digits = "".join(str(d) for d in dec.as_tuple().digits).rstrip("0")
        adjusted = dec.adjusted()
        if -5 <= adjusted < 16:
            text = f"{dec:f}"
            if "." in text:
                text = text.rstrip("0")
            text = text + "0" if text.endswith(".") else text
            text = text if "." in text else text + ".0"
        else:
            text = f"{digits[0]}.{digits[1:] or '0'}e{adjusted}"
    if prec == DOUBLE and "e" not in text:
        # PSyclone writes DOUBLE literals by turning 'e' into 'd': without an
        # exponent the literal would come out as a default real.
        text += "e0"
    return text


def make_constant(value: Fraction, stype: ScalarType) -> Optional[Node]:
    '''A Literal (under unary minus if negative) for value, or None if it
    cannot be represented exactly.'''
    if not fits(value, stype):
        return None
    magnitude = abs(value)
    if stype.intrinsic == INTEGER:
        text = str(magnitude.numerator)
    else:
        text = format_real(magnitude, stype.precision)
    literal = Literal(text, _new_type(stype))
    if value < 0:
        return UnaryOperation.create(UOp.MINUS, literal)
    return literal
