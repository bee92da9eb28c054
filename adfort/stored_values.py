"""Values of costly intrinsic calls that a statement's adjoint needs are
kept from the forward run instead of being computed again.

The partials of ``thetal = t*(p00/(p - e))**kappa*(t/tl)**(0.28*r)`` name
``(t/tl)**(0.28*r)`` and ``(p00/(p - e))**kappa`` again: the returning
motion would evaluate each power once more (and ``EXP`` of
``es = 6.112*exp(17.67*tc/(tc + 243.5))`` for the partial of ``es``).  Such
a value is given a (passive) temporary set just before the statement,
``stored = (t/tl)**(0.28*r)``, the statement reads the temporary, and its
adjoint reads it wherever it named the call.  The taping plan then treats
the temporary as any local: where the returning motion is a routine of its
own it is handed over at the end of the recording (one push per call);
where both are one routine (a callee's ``f_rev``) it just lives on.

Cost model: a costly call (EXP, LOG, a power with a non-integer exponent,
trigonometric and hyperbolic functions and their inverses, SQRT, ERF…)
costs tens of cycles; a tape push and pop a few.  Statements inside loops
are left alone: there each iteration would push the value again, trading
tape for time, and the loops' tapes already dominate memory.  A call under
MERGE stays where it is (only one of MERGE's values may be meant to be
computed), and so does one whose real operands have different kinds (its
value's kind is not known here).
"""

from psyclone.psyir.nodes import (
    Assignment, BinaryOperation, DataNode, IntrinsicCall, Literal, Loop, Reference, WhileLoop)
from psyclone.psyir.symbols import ScalarType

from adfort import naming
from adfort.arrays import expr_rank
from adfort.exprs import kind_key, real_kind, real_type
from adfort.symbols import new_local

_COSTLY = {"EXP", "LOG", "LOG10", "SQRT", "SIN", "COS", "TAN", "ASIN", "ACOS", "ATAN",
           "ATAN2", "SINH", "COSH", "TANH", "ASINH", "ACOSH", "ATANH", "ERF", "ERFC",
           "ERFC_SCALED", "HYPOT", "BESSEL_J0", "BESSEL_J1", "BESSEL_Y0", "BESSEL_Y1"}


def store_costly_values(routine, adjoints, table, taken=()):
    """Give the costly calls the adjoints of `routine`'s loop-free
    assignments name again temporaries (see the module docstring).

    :param routine: the working copy (modified: temporaries are set before
        the statements, which read them).
    :param adjoints: {id(Assignment): its adjoint statements} (modified).
    :param table: the routine's symbol table.
    :returns: the number of values stored.
    """
    stored = 0
    for assign in routine.walk(Assignment):
        adjoint = adjoints.get(id(assign))
        if not adjoint or assign.is_pointer or assign.ancestor((Loop, WhileLoop)) is not None:
            continue
        found = [(e, e.debug_string()) for e in _costly(assign.rhs)]
        found = [(e, text) for e, text in found if _named_in(text, adjoint)]
        if not found:
            continue
        temps = {}
        for expr, text in found:
            if text not in temps:
                temps[text] = new_local(table, naming.stored_value(_label(expr)),
                                        real_type(_one_kind(expr)), taken)
        # The adjoint names outer calls whole: replace the longest first.
        for text in sorted(temps, key=len, reverse=True):
            for stmt in adjoint:
                _replace_text(stmt, text, temps[text])
        # Inner calls first, so that an outer one reads the inner's value.
        found.sort(key=lambda item: len(item[0].walk(DataNode)))
        set_already = set()
        for expr, text in found:
            temp = temps[text]
            if text not in set_already:
                set_already.add(text)
                assign.parent.addchild(Assignment.create(Reference(temp), expr.copy()),
                                       assign.position)
                stored += 1
            expr.replace_with(Reference(temp))
    return stored


def _label(expr):
    if isinstance(expr, IntrinsicCall):
        return expr.intrinsic.name.lower()
    return "pow"


def _costly(expr):
    """Scalar costly calls in `expr`, not under a MERGE, whose real
    operands share one kind."""
    found = []
    for node in expr.walk(DataNode):
        if isinstance(node, IntrinsicCall):
            costly = node.intrinsic.name in _COSTLY
        elif isinstance(node, BinaryOperation):
            costly = node.operator == BinaryOperation.Operator.POW and not (
                isinstance(node.children[1], Literal)
                and node.children[1].datatype.intrinsic == ScalarType.Intrinsic.INTEGER)
        else:
            costly = False
        if not costly or expr_rank(node) != 0 or _under_merge(node, expr):
            continue
        if _one_kind(node) is not None:
            found.append(node)
    return found


def _under_merge(node, top):
    while node is not top and node is not None:
        node = node.parent
        if isinstance(node, IntrinsicCall) and node.intrinsic.name == "MERGE":
            return True
    return False


def _one_kind(node):
    """The kind of `node`'s value if every variable and kind-suffixed
    literal of it that is real has the same kind (as the first real
    variable declares it), else None."""
    kinds, first = set(), None
    for leaf in node.walk((Reference, Literal)):
        if isinstance(leaf, Literal):
            dtype = leaf.datatype
            if dtype.intrinsic == ScalarType.Intrinsic.REAL and \
                    dtype.precision not in (ScalarType.Precision.UNDEFINED,):
                kinds.add(kind_key(dtype.precision))
            continue
        if isinstance(leaf.parent, IntrinsicCall) and leaf is leaf.parent.routine:
            continue
        kind = real_kind(leaf)
        if kind is None:
            if getattr(leaf, "member", None) is not None:
                return False
            continue  # an integer
        first = kind if first is None else first
        kinds.add(kind_key(kind))
    return first if first is not None and len(kinds) == 1 else None


def _named_in(text, statements):
    return any(node.debug_string() == text for stmt in statements
               for node in stmt.walk(DataNode))


def _replace_text(stmt, text, temp):
    for node in stmt.walk(DataNode):
        if node.parent is not None and node.debug_string() == text:
            node.replace_with(Reference(temp))
