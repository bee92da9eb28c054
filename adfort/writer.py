"""The one Fortran writer of adfort: parentheses from the grammar.

Every piece of Fortran adfort generates is written by :class:`Writer`, so
no expression built as a tree can come out meaning something else.  Each
operand is parenthesised exactly when the Fortran grammar (F2008 7.1.2)
would otherwise read the text differently:

- ``**`` is right-associative and binds tighter than anything: its left
  operand must be a primary (``(x**3)**2``, ``(-a)**2``), its right one
  may itself be a power (``a**b**c`` is ``a**(b**c)``) but not a negation
  (``x**(-2)``);
- ``*``, ``/``, ``+``, ``-``, ``//``, ``.and.``, ``.or.``, ``.eqv.`` are
  left-associative: a right operand of the same level needs parentheses
  (``a - (b - c)``, ``a / (b*c)``);
- a unary ``-``/``+`` is an operand of ``+``/``-`` level: it may open a
  sum (``-a + b``) but nothing else takes it bare (``a*(-b)``,
  ``a - (-b)``), and its own operand must be a term (``-(a + b)``); a
  product led by one is written ``-a * b`` where a sum could stand, as
  ``-(a*b)`` and ``(-a)*b`` are the same number;
- comparisons do not chain and ``.not.`` takes a comparison-level operand.

Parentheses the source had (``has_explicit_grouping``) are kept, so the
recording copy of the original code evaluates in the original order.
"""

import contextlib
import re

from psyclone.configuration import Config
from psyclone.psyir.backend.fortran import FortranWriter
from psyclone.psyir.backend.visitor import VisitorError
from psyclone.psyir.commentable_mixin import CommentableMixin
from psyclone.psyir.nodes import (
    BinaryOperation, Call, Container, Literal, Node, Operation, Reference, Routine, Schedule,
    UnaryOperation)
from psyclone.psyir.symbols import NoType, RoutineSymbol, SymbolTable

_BinOp = BinaryOperation.Operator
_UnOp = UnaryOperation.Operator

# Binding strength of each operation's result (higher binds tighter); a
# primary (variable, literal, call, parenthesised expression) is PRIMARY.
PRIMARY = 11
_POWER, _TERM, _SUM, _CONCAT, _COMPARISON = 10, 9, 8, 7, 6
_NOT, _AND, _OR, _EQUIVALENCE = 5, 4, 3, 2

_BINARY_LEVEL = {
    _BinOp.POW: _POWER,
    _BinOp.MUL: _TERM, _BinOp.DIV: _TERM,
    _BinOp.ADD: _SUM, _BinOp.SUB: _SUM,
    _BinOp.EQ: _COMPARISON, _BinOp.NE: _COMPARISON, _BinOp.GT: _COMPARISON,
    _BinOp.LT: _COMPARISON, _BinOp.GE: _COMPARISON, _BinOp.LE: _COMPARISON,
    _BinOp.AND: _AND, _BinOp.OR: _OR,
    _BinOp.EQV: _EQUIVALENCE, _BinOp.NEQV: _EQUIVALENCE,
}
_UNARY_LEVEL = {_UnOp.MINUS: _SUM, _UnOp.PLUS: _SUM, _UnOp.NOT: _NOT}


def _grouped(node):
    return isinstance(node, Operation) and getattr(node, "has_explicit_grouping", False)


def _leads_with_sign(node):
    """Whether `node`, written without parentheses around it, starts with a
    sign: a negation, a signed literal, or a product or quotient whose
    first factor does."""
    if isinstance(node, UnaryOperation):
        return node.operator in (_UnOp.MINUS, _UnOp.PLUS)
    if isinstance(node, BinaryOperation):
        return node.operator in (_BinOp.MUL, _BinOp.DIV) and _signed(node.children[0])
    return isinstance(node, Literal) and str(node.value).startswith(("-", "+"))


def _signed(node):
    """Whether the text of `node` as an operand starts with a sign."""
    return not _grouped(node) and _leads_with_sign(node)


def level(node):
    """How tightly the text of expression `node` binds, unparenthesised.

    :param node: a PSyIR expression node.
    :returns: one of the levels above (PRIMARY for anything that is not
        an operation).
    """
    if _leads_with_sign(node):
        return _SUM
    if isinstance(node, BinaryOperation):
        return _BINARY_LEVEL.get(node.operator, PRIMARY)
    if isinstance(node, UnaryOperation):
        return _UNARY_LEVEL.get(node.operator, PRIMARY)
    return PRIMARY


def operand_levels(operator):
    """The least levels the (left, right) operands of binary `operator`
    may have without parentheses.

    :param operator: a :class:`BinaryOperation.Operator`.
    """
    own = _BINARY_LEVEL[operator]
    if own == _POWER:
        return PRIMARY, _POWER     # right-associative
    if own == _COMPARISON:
        return _CONCAT, _CONCAT    # non-associative, operands are level-3
    if own == _SUM:
        return _SUM, _TERM         # a sum may start with a unary minus
    return own, own + 1            # left-associative


def unary_operand_level(operator):
    """The least level the operand of unary `operator` may have."""
    return _TERM if _UNARY_LEVEL[operator] == _SUM else _COMPARISON


class Writer(FortranWriter):
    """FortranWriter whose operator parentheses follow the grammar."""

    # (writer class, node class): (handler names the writer has, in the
    # order of the node class's MRO; whether the node may carry comments;
    # whether it has global constraints to validate).
    _dispatch = {}

    def _handlers(self, cls):
        key = (type(self), cls)
        found = Writer._dispatch.get(key)
        if found is None:
            names = [c.__name__.lower() + "_node" for c in cls.__mro__ if c is not object]
            found = (tuple(n for n in names if hasattr(type(self), n)), names,
                     issubclass(cls, CommentableMixin),
                     cls.validate_global_constraints is not Node.validate_global_constraints)
            Writer._dispatch[key] = found
        return found

    def __call__(self, node):
        """PSyclone's, without its lowering walk over a tree (not copied)
        where no node has anything to lower: every node's
        ``lower_to_language_level`` is then ``Node``'s, which only visits
        the children and returns the node."""
        if self._disable_copy and not self._DISABLE_LOWERING and isinstance(node, Node) \
                and _nothing_to_lower(node):
            return self._visit(node)
        return super().__call__(node)

    def _visit(self, node):
        """PSyclone's ``PSyIRVisitor._visit`` with the handler of each node
        class looked up once: PSyclone builds the names of the node's
        classes and tries each (an AttributeError per missing handler) at
        every node, a third of the writing time.  The text is the same."""
        if not isinstance(node, Node):
            raise VisitorError(f"Expected argument to be of type 'Node' but found "
                               f"'{type(node).__name__}'.")
        handlers, names, commentable, validate = self._handlers(type(node))
        if validate and self._validate_nodes:
            node.validate_global_constraints()
        for method_name in handlers:
            try:
                node_result = getattr(self, method_name)(node)
            except AttributeError as excinfo:
                if f"attribute '{method_name}'" in str(excinfo):
                    continue
                raise AttributeError(excinfo) from excinfo
            if not isinstance(node_result, str) or not commentable:
                return node_result
            return self._commented(node, node_result)
        if self._skip_nodes:
            results = []
            for child in node.children:
                result = self._visit(child)
                if result is not None:
                    results.append(result)
            return "".join(results)
        raise VisitorError(f"Unsupported node '{type(node).__name__}' found: method names "
                           f"attempted were {names}.")

    def _commented(self, node, text):
        """`text` of `node` with its preceding and inline comments, as
        PSyclone's visitor adds them."""
        result = ""
        parent = node.parent
        if not parent or isinstance(parent, (Schedule, Container)):
            if node.preceding_comment and self._COMMENT_PREFIX:
                if node.position != 0:
                    result += "\n"
                for line in node.preceding_comment.split("\n"):
                    result += self._nindent + self._COMMENT_PREFIX + line + "\n"
        result += text
        if node.inline_comment and self._COMMENT_PREFIX:
            if result[-1] != "\n":
                raise VisitorError(
                    f"An inline_comment can only be added to a construct that finishes "
                    f"with a '\\n', indicating that the line has ended, but node "
                    f"'{node}' results in '{result}'.")
            result = result[:-1] + "  " + self._COMMENT_PREFIX + node.inline_comment + "\n"
        return result

    def verbatimroutine_node(self, node):
        """A :class:`VerbatimRoutine`: its text, indented where it stands."""
        return "".join(self._nindent + line if line.strip() else line
                       for line in node.text.splitlines(True))

    def routine_node(self, node):
        """PSyclone's, with the merges of empty symbol tables skipped: it
        merges the table of every schedule of the routine (each loop and
        IF body) into one, each merge comparing the whole scope's imports
        though most of those tables are empty (nothing to merge)."""
        with _empty_merges_skipped():
            return super().routine_node(node)

    def intrinsiccall_node(self, node):
        text = self._intrinsic_call(node)
        # MOVE_ALLOC is a subroutine (PSyclone writes it as a function).
        if node.routine.name.upper() == "MOVE_ALLOC" and text.lstrip().upper().startswith(
                "MOVE_ALLOC"):
            return f"{self._nindent}call {text.lstrip()}"
        return text

    def _intrinsic_call(self, node):
        """PSyclone's ``intrinsiccall_node``, with the argument names of
        each (intrinsic, names given) worked out once (:func:`_named`): its
        naming and interface matching were most of the time spent on the
        thousands of ``SIZE(a)`` of a long routine's tape reserves."""
        if Config.get().backend_intrinsic_named_kwargs:
            return super().intrinsiccall_node(node)
        try:
            names, interface = _named(node)
            args = []
            correct_names = True
            for idx, (name, child) in enumerate(zip(names, node.arguments)):
                if idx < len(interface) and correct_names:
                    # A required argument in its place is written bare.
                    if name == interface[idx]:
                        args.append(self._visit(child))
                        continue
                    correct_names = False
                args.append(f"{name}={self._visit(child)}" if name else self._visit(child))
            args = ", ".join(args)
        except NotImplementedError:
            args = self._gen_arguments(node)
        name = node.routine.name
        if name not in ("DATE_AND_TIME", "SYSTEM_CLOCK", "MVBITS", "RANDOM_NUMBER",
                        "RANDOM_SEED"):
            if not node.parent or isinstance(node.parent, Schedule):
                return f"{self._nindent}{name}({args})\n"
            return f"{name}({args})"
        return f"{self._nindent}call {self._visit(node.routine)}({args})\n"

    def _gen_arguments(self, node):
        """PSyclone's, with the argument names asked for once: PSyclone
        asks once per argument, each time reconciling them all (a call of
        hundreds of arguments, ``r_rec_body``'s, was most of the writing)."""
        if not isinstance(node, Call):
            raise TypeError(f"The _gen_arguments utility function expects a Call node, "
                            f"but found '{type(node).__name__}'.")
        names = node.argument_names
        named = [k for k, name in enumerate(names) if name]
        if named and not all(names[named[0]:]):
            raise VisitorError(
                f"Fortran expects all named arguments to occur after all positional "
                f"arguments but this is not the case for {str(node)}")
        return ", ".join(f"{name}={self._visit(child)}" if name else self._visit(child)
                         for name, child in zip(names, node.arguments))

    def _operand(self, node, least):
        text = self._visit(node)
        if level(node) < least or _grouped(node):
            return f"({text})"
        return text

    def binaryoperation_node(self, node):
        """Fortran text of a BinaryOperation; parentheses on its operands
        are decided here, by the operator that takes them."""
        left, right = operand_levels(node.operator)
        if _leads_with_sign(node):
            left = _SUM   # this node stands where a signed term may
        lhs = self._operand(node.children[0], left)
        rhs = self._operand(node.children[1], right)
        return f"{lhs} {self.get_operator(node.operator)} {rhs}"

    def unaryoperation_node(self, node):
        """Fortran text of a UnaryOperation (``-x``, ``.not. p``).  A
        parenthesised variable given as an actual argument, read as ``+x``
        (see :mod:`adfort.parentheses`), is written ``(x)`` again: unary
        ``+`` takes only numbers, and ``(x)`` passes a copy of a logical,
        character or derived-type variable too."""
        if node.operator == _UnOp.PLUS and isinstance(node.parent, Call) and \
                any(a is node for a in node.parent.arguments) and \
                isinstance(node.children[0], Reference):
            return f"({self._visit(node.children[0])})"
        operand = self._operand(node.children[0], unary_operand_level(node.operator))
        return f"{self.get_operator(node.operator)}{operand}"

    def gen_decls(self, symbol_table, is_module_scope=False):
        """Declarations of `symbol_table`; a named constant whose value
        inquires about a variable of the scope (RTE's ``real(wp),
        parameter :: tau_thresh = sqrt(epsilon(tau))`` with ``tau`` a dummy)
        comes after the other declarations (PSyclone puts constants first,
        before the variable they name)."""
        deferred = _after_variables(symbol_table)
        if not deferred:
            return super().gen_decls(symbol_table, is_module_scope)
        # Locals whose declarations name such a constant (``w(n2)`` with
        # ``n2 = size(x)/2``) come after it, in their order.
        later = _naming(symbol_table, deferred)
        # pylint: disable=protected-access
        kept = symbol_table._symbols
        symbol_table._symbols = type(kept)(
            (key, sym) for key, sym in kept.items() if sym not in deferred + later)
        try:
            text = super().gen_decls(symbol_table, is_module_scope)
        finally:
            symbol_table._symbols = kept
        return text + "".join(self.gen_vardecl(sym, include_visibility=is_module_scope)
                              for sym in deferred + later)


_NAMED = {}     # (intrinsic, argument names given): (names computed, interface)


def _named(node):
    """(argument names, matching interface) of IntrinsicCall `node`, as
    PSyclone's ``compute_argument_names`` (which names the node's arguments
    too) and ``_find_matching_interface`` give them.  Both depend only on
    the intrinsic and the names given (their number is the arguments'), so
    each answer is kept; a failure (raised) is not, it is raised again."""
    given = tuple(node.argument_names)
    key = (node.intrinsic, given)
    found = _NAMED.get(key)
    if found is None:
        node.compute_argument_names()
        found = _NAMED[key] = (tuple(node.argument_names), node._find_matching_interface())
    elif found[0] != given:
        # pylint: disable=protected-access
        node._argument_names = [(id(arg), name) for arg, name in zip(node.arguments, found[0])]
    return found


_GENERIC_LOWERING = {}     # node class: whether its lowering is Node's


def _nothing_to_lower(node):
    """Whether no node of the tree under `node` lowers itself otherwise than
    by visiting its children (``Node.lower_to_language_level``)."""
    generic = Node.lower_to_language_level
    known = _GENERIC_LOWERING
    stack = [node]
    while stack:
        current = stack.pop()
        cls = type(current)
        plain = known.get(cls)
        if plain is None:
            plain = known[cls] = cls.lower_to_language_level is generic
        if not plain:
            return False
        stack.extend(current.children)
    return True


@contextlib.contextmanager
def _empty_merges_skipped():
    """``SymbolTable.merge`` returning at once when the other table has no
    symbol (its merge would check nothing and add nothing)."""
    merge = SymbolTable.merge
    if getattr(merge, "adfort_skips_empty", False):
        yield
        return

    def quick(self, other_table, symbols_to_skip=()):
        # pylint: disable=protected-access
        if type(symbols_to_skip) is tuple and isinstance(other_table, SymbolTable) \
                and not other_table._symbols:
            return None
        return merge(self, other_table, symbols_to_skip)

    quick.adfort_skips_empty = True
    SymbolTable.merge = quick
    try:
        yield
    finally:
        SymbolTable.merge = merge


def _after_variables(symbol_table):
    """The named constants of `symbol_table` whose values name one of its
    variables (an inquiry: ``epsilon(tau)``), in declaration order."""
    from psyclone.psyir.symbols import DataSymbol
    variables = {sym.name.lower() for sym in symbol_table.datasymbols
                 if not sym.is_constant and not sym.is_import and not sym.is_unresolved}
    found = []
    for sym in symbol_table.datasymbols:
        if not isinstance(sym, DataSymbol) or not sym.is_constant or sym.is_import \
                or sym.initial_value is None:
            continue
        names = {ref.name.lower() for ref in sym.initial_value.walk(Reference)}
        if names & variables or any(dep in found for dep in sym.get_all_accessed_symbols()):
            found.append(sym)
    return found


def write(node):
    """Fortran text of `node` (a statement, routine, container or expression)."""
    return Writer()(node)


def _naming(symbol_table, constants):
    """The local variables of `symbol_table` (not arguments) whose
    declarations name one of `constants`, in declaration order."""
    from adfort.prune import _datatype_references
    names = {c.name.lower() for c in constants}
    return [sym for sym in symbol_table.datasymbols
            if sym not in constants and not sym.is_argument and not sym.is_import
            and not sym.is_unresolved
            and any(ref.symbol.name.lower() in names for ref in _datatype_references(sym))]


class VerbatimRoutine(Routine):
    """A routine of fixed text adfort writes as it is (the tapes' reserve,
    copy and bit routines): nothing reads or transforms it, so it is never
    parsed.  Its text is laid out as the writer would write it, indented
    relative to the routine's own level.

    :param str name: the routine's name.
    :param str text: its Fortran source, ``subroutine`` to ``end``.
    """

    def __init__(self, name, text, **kwargs):
        super().__init__(RoutineSymbol(name, NoType()), **kwargs)
        self.text = text


def verbatim_routines(source):
    """The :class:`VerbatimRoutine` of each ``subroutine … end subroutine``
    of `source`, in order."""
    found = []
    for match in re.finditer(r"^subroutine (\w+)\(.*?^end subroutine \1\n", source,
                             re.M | re.S):
        found.append(VerbatimRoutine(match.group(1), match.group(0)))
    return found
