"""WHERE statements and constructs, lowered to loops with Fortran's meaning.

A WHERE evaluates its mask once, before any assignment; each assignment
then runs over all its elements before the next one starts, its right-hand
side evaluated whole before the array is assigned; non-elemental function
references (``CSHIFT``, ``SUM``, ``MATMUL``…) are evaluated without the
mask; a masked ELSEWHERE evaluates its mask, where the earlier masks were
false, when it is reached (Fortran 2008, 7.2.3).  PSyclone reads some
WHERE forms as loops that take each element in turn through all the
assignments, which is another program when an assignment reads elements
an earlier one (or itself) writes, and keeps the others opaque.

Here every WHERE becomes, in adfort's copy of the program:

* the non-elemental parts of an expression, and the references to the
  array being assigned other than the assigned elements themselves, stored
  in temporaries first (``where_value``), unmasked;
* the mask stored in a logical array (``where_mask``, and
  ``where_pending`` for the elements left to the ELSEWHERE clauses) when
  the construct assigns what it reads or has several clauses, else
  evaluated element by element;
* one loop nest per assignment, innermost over the first dimension,
  assigning the element where the mask holds.

A WHERE this module cannot lower (nested WHERE, a value whose type adfort
cannot tell) is left as it was, for the fence to report.
"""

from fparser.two import Fortran2003
from psyclone.psyir.frontend.fparser2 import Fparser2Reader
from psyclone.psyir.nodes import (
    ArrayReference, Assignment, Call, CodeBlock, IfBlock, IntrinsicCall, Literal, Loop,
    Reference, Routine, UnaryOperation)
from psyclone.psyir.symbols import ArrayType, DataSymbol, ScalarType

from adfort import naming
from adfort.arrays import expr_rank, is_shape_inquiry
from adfort.elemental import element
from adfort.exprs import INTEGER_TYPE, real_kind, real_type
from adfort.symbols import new_local

_LOGICAL = ScalarType(ScalarType.Intrinsic.BOOLEAN, ScalarType.Precision.UNDEFINED)
_WHERE_NODES = (Fortran2003.Where_Construct, Fortran2003.Where_Stmt)


class _CannotLower(Exception):
    """This WHERE is left as PSyclone read it."""


def lower_where(tree, recognise=lambda node: None):
    """Replace every WHERE of the routines in `tree` by loops (see module
    docstring); those this module cannot lower stay as they are.

    :param recognise: ``recognise(node)`` gives the expressions read again
        from the WHERE the front end's reading of intrinsics fparser does
        not know (HYPOT…)."""
    reader = Fparser2Reader()
    for routine in tree.walk(Routine):
        # One WHERE at a time, found again after each: replacing one WHERE
        # of an opaque block of several detaches that block.
        left = set()        # ids of the WHEREs left as they are
        while True:
            pending = [(node, ast) for node, ast in _where_nodes(routine)
                       if id(ast) not in left]
            if not pending:
                break
            node, ast = pending[0]
            try:
                statements = _Lowering(routine, node, reader, recognise).lower(ast)
            except _CannotLower:
                left.add(id(ast))
                continue
            _replace(node, ast, statements)


def tolerate_where_failures(reader):
    """Make the FortranReader `reader` keep a WHERE its own lowering fails
    on (PSyclone raises IndexError on some) as an opaque block, which
    :func:`lower_where` lowers."""
    processor = reader._processor
    for kind in _WHERE_NODES:
        handler = processor.handlers.get(kind)
        if handler is None:
            continue

        def guarded(node, parent, handler=handler):
            try:
                return handler(node, parent)
            except NotImplementedError:
                raise
            except Exception as err:  # a failure of PSyclone's lowering
                raise NotImplementedError(str(err)) from err
        processor.handlers[kind] = guarded


def _where_nodes(routine):
    """(PSyIR node, fparser WHERE) pairs: PSyclone's loops for a WHERE
    (outermost, annotated ``was_where``) and opaque blocks holding one."""
    found = []
    for node in routine.walk((Loop, CodeBlock)):
        if isinstance(node, Loop):
            if "was_where" in node.annotations and isinstance(node.ast, _WHERE_NODES) \
                    and not (node.ancestor(Loop) and "was_where" in
                             node.ancestor(Loop).annotations):
                found.append((node, node.ast))
        else:
            for ast in node.parse_tree_nodes:
                if isinstance(ast, _WHERE_NODES):
                    found.append((node, ast))
    return found


def _replace(node, ast, statements):
    """Put `statements` where `node` (or, in an opaque block of several
    statements, where `ast`) was."""
    parent, position = node.parent, node.position
    if isinstance(node, CodeBlock) and len(node.parse_tree_nodes) > 1:
        before, after = [], []
        target = before
        for other in node.parse_tree_nodes:
            if other is ast:
                target = after
            else:
                target.append(other)
        node.detach()
        new = []
        if before:
            new.append(CodeBlock(before, CodeBlock.Structure.STATEMENT))
        new.extend(statements)
        if after:
            new.append(CodeBlock(after, CodeBlock.Structure.STATEMENT))
    else:
        node.detach()
        new = statements
    for offset, statement in enumerate(new):
        parent.addchild(statement, position + offset)


def _reads_own_element(rhs, lhs):
    """The text of the first element (all subscripts scalar) of the array
    `lhs` assigns that `rhs` reads, or None.  The standard reads it before
    any element is assigned; gfortran (12) reads it as the masked elements
    before it are assigned, so compiled code and adfort's lowering differ."""
    for ref in rhs.walk(Reference):
        if ref.symbol is lhs.symbol and expr_rank(ref) == 0:
            return ref.debug_string()
    return None


class _Lowering:
    """The lowering of one WHERE of `routine`, found at PSyIR `node`."""

    def __init__(self, routine, node, reader, recognise):
        self.recognise = recognise
        self.routine = routine
        self.table = routine.symbol_table
        self.node = node
        self.reader = reader
        self.before = []        # statements run first (temporaries)
        self.after = []         # deallocations
        self.shape = None       # a reference of the WHERE's shape
        self.indices = None

    # -- reading ------------------------------------------------------------
    def expression(self, ast):
        """PSyIR of the fparser expression `ast`, read in the routine's scope."""
        holder = Assignment(parent=self.node.parent)
        self.reader.process_nodes(holder, [ast])
        if len(holder.children) != 1 or holder.walk(CodeBlock):
            raise _CannotLower()
        self.recognise(holder)
        for ref in holder.walk(Reference):
            if isinstance(ref.parent, Call) and ref is ref.parent.routine:
                continue
            if not isinstance(ref.symbol, DataSymbol) or ref.symbol.is_unresolved:
                # Its shape is unknown (a module variable not resolved yet):
                # lowered later, when it is (see the container).
                raise _CannotLower()
        return holder.children[0].detach()

    def clauses(self, ast):
        """[(mask fparser node or None, [fparser assignments])] in order."""
        if isinstance(ast, Fortran2003.Where_Stmt):
            return [(ast.items[0], [ast.items[1]])]
        clauses = []
        for item in ast.content:
            if isinstance(item, Fortran2003.Where_Construct_Stmt):
                clauses.append((item.items[0], []))
            elif isinstance(item, Fortran2003.Masked_Elsewhere_Stmt):
                clauses.append((item.items[0], []))
            elif isinstance(item, Fortran2003.Elsewhere_Stmt):
                clauses.append((None, []))
            elif isinstance(item, Fortran2003.End_Where_Stmt):
                pass
            elif isinstance(item, Fortran2003.Assignment_Stmt):
                clauses[-1][1].append(item)
            elif isinstance(item, Fortran2003.Comment):
                pass
            else:  # a nested WHERE, a labelled statement…
                raise _CannotLower()
        return clauses

    # -- lowering -----------------------------------------------------------
    def lower(self, ast):
        clauses = []
        for mask, assignments in self.clauses(ast):
            read = [(self.expression(a.items[0]), self.expression(a.items[2]), a)
                    for a in assignments]
            clauses.append((None if mask is None else self.expression(mask), read, mask))
        assigned = [lhs for _, read, _ in clauses for lhs, _, _ in read]
        if not assigned or any(not isinstance(lhs, Reference) for lhs in assigned):
            raise _CannotLower()
        self.shape = assigned[0]
        rank = expr_rank(self.shape)
        if rank == 0 or any(expr_rank(lhs) != rank for lhs in assigned):
            raise _CannotLower()
        self.indices = [new_local(self.table, naming.WHERE_INDEX, INTEGER_TYPE)
                        for _ in range(rank)]
        fused = self.fused(clauses, ast)
        if fused is not None:
            return [fused]
        written = {lhs.symbol.name.lower() for lhs in assigned}
        mask_reads = {r.symbol.name.lower() for mask, _, _ in clauses if mask is not None
                      for r in mask.walk(Reference)}
        stored = len(clauses) > 1 or bool(mask_reads & written)
        body = []
        control = pending = None
        if stored:
            control = self.mask_array(naming.WHERE_MASK)
            if len(clauses) > 1:
                pending = self.mask_array(naming.WHERE_PENDING)
        for number, (mask, read, mask_ast) in enumerate(clauses):
            last = number == len(clauses) - 1
            if mask is not None:
                mask = self.hoisted(mask, None, body)
            if not stored:
                condition = self.elementwise(mask)
            elif mask is None:  # the final ELSEWHERE: the elements left
                condition = self.at(pending)
            else:
                body.append(self.set_masks(mask, control, pending, number, last))
                condition = self.at(control)
            for lhs, rhs, statement in read:
                own_element = _reads_own_element(rhs, lhs)
                functions = [c for c in rhs.walk(Call) if not isinstance(c, IntrinsicCall)]
                rhs = self.hoisted(rhs, lhs, body)
                assign = Assignment.create(self.elementwise(lhs), self.elementwise(rhs))
                if functions:
                    # A function reading the assigned array through its module
                    # meets the same disagreement (checked with the callees).
                    assign.adfort_where_functions = functions
                # The assignment of a one-line WHERE has no line of its own.
                assign.ast = statement if getattr(statement, "item", None) else ast
                if own_element is not None:
                    # The fence rejects it where adfort runs this code.
                    assign.adfort_where_own_element = own_element
                nest = self.nest(IfBlock.create(condition.copy(), [assign]))
                nest.ast = mask_ast if mask_ast is not None else statement
                body.append(nest)
        return self.before + body + self.after

    def fused(self, clauses, ast):
        """The whole WHERE as one loop nest taking each element through
        its clauses (``if (m1) then … else if (m2) then … else … end if``),
        or None when that could be another program.

        It is the same program when every expression is elementwise (no
        temporaries to store first, no user function) and each array the
        construct assigns is named, everywhere in it (masks included), at
        the one element being assigned: no element then sees a value
        another element's assignments made, and each mask reads, at its
        element, what Fortran's order of evaluation would have it read.
        One pass over memory, no mask arrays, and conditions the reverse
        sweep can test again instead of taping them."""
        written = {lhs.symbol.name.lower() for _, read, _ in clauses for lhs, _, _ in read}
        built, seen = [], {}
        try:
            for mask, read, mask_ast in clauses:
                exprs = ([] if mask is None else [(mask, None)]) + \
                    [(rhs, lhs) for lhs, rhs, _ in read]
                for expr, lhs in exprs:
                    if self.parts(expr, lhs) or any(not isinstance(c, IntrinsicCall)
                                                    for c in expr.walk(Call)):
                        return None
                condition = None if mask is None else self.elementwise(mask)
                assigns = []
                for lhs, rhs, statement in read:
                    if _reads_own_element(rhs, lhs) is not None:
                        return None
                    assign = Assignment.create(self.elementwise(lhs), self.elementwise(rhs))
                    assign.ast = statement if getattr(statement, "item", None) else ast
                    assigns.append(assign)
                built.append((condition, assigns, mask_ast))
        except _CannotLower:
            return None
        for condition, assigns, _ in built:
            for node in ([condition] if condition is not None else []) + assigns:
                for ref in node.walk(Reference):
                    if is_shape_inquiry(ref):
                        continue
                    name = ref.symbol.name.lower()
                    if name in written and seen.setdefault(
                            name, ref.debug_string().lower()) != ref.debug_string().lower():
                        return None
        body = None
        for condition, assigns, mask_ast in reversed(built):
            if condition is None:        # the final ELSEWHERE
                body = assigns
                continue
            branch = IfBlock.create(condition, assigns, body)
            branch.ast = mask_ast
            body = [branch]
        if body is None:
            return None
        nest = self.nest(*body)
        nest.ast = built[0][2] if built[0][2] is not None else ast
        return nest

    def mask_array(self, base):
        symbol = new_local(self.table, base, ArrayType(
            _LOGICAL, [ArrayType.Extent.DEFERRED] * len(self.indices)))
        self.allocate(symbol)
        return symbol

    def allocate(self, symbol):
        extents = [IntrinsicCall.create(IntrinsicCall.Intrinsic.SIZE, [
            self.shape.copy(), ("dim", Literal(str(d + 1), INTEGER_TYPE))])
            for d in range(len(self.indices))]
        self.before.append(IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
            ArrayReference.create(symbol, extents)]))
        self.after.append(IntrinsicCall.create(IntrinsicCall.Intrinsic.DEALLOCATE, [
            Reference(symbol)]))

    def at(self, symbol):
        return ArrayReference.create(symbol, [Reference(i) for i in self.indices])

    def set_masks(self, mask, control, pending, number, last):
        """The loop nest setting the control mask (and the pending one) of
        clause `number`."""
        statements = [Assignment.create(self.at(control), self.elementwise(mask))]
        if pending is not None and not last:
            statements.append(Assignment.create(self.at(pending), UnaryOperation.create(
                UnaryOperation.Operator.NOT, self.at(control))))
        if number == 0:
            return self.nest(*statements)
        return self.nest(IfBlock.create(self.at(pending), statements, [
            Assignment.create(self.at(control), Literal("false", _LOGICAL))]))

    def nest(self, *statements):
        body = list(statements)
        one = Literal("1", INTEGER_TYPE)
        for d, index in enumerate(self.indices):
            count = IntrinsicCall.create(IntrinsicCall.Intrinsic.SIZE, [
                self.shape.copy(), ("dim", Literal(str(d + 1), INTEGER_TYPE))])
            body = [Loop.create(index, one.copy(), count, one.copy(), body)]
        return body[0]

    def elementwise(self, expr):
        value = element(expr, self.indices)
        if value is None:
            raise _CannotLower()
        return value

    # -- temporaries --------------------------------------------------------
    def hoisted(self, expr, lhs, body):
        """`expr` with its non-elemental parts, and its references to the
        array `lhs` assigns other than ``lhs`` itself, read from
        temporaries set in `body` first."""
        for part in self.parts(expr, lhs):
            # An elemental user function given arrays inside a part
            # (CSHIFT(f(a), 2)) is an array of the WHERE's shape: stored
            # first, so that the part's rank is known.
            for call in part.walk(Call):
                if call is not part and not isinstance(call, IntrinsicCall) and any(
                        expr_rank(a) > 0 for a in call.arguments):
                    inner = self.temporary(call)
                    call.replace_with(Reference(inner))
                    body.append(Assignment.create(Reference(inner), call))
            temp = self.temporary(part)
            if part is expr:
                expr = Reference(temp)
            else:
                part.replace_with(Reference(temp))
            body.append(Assignment.create(Reference(temp), part))
        return expr

    def parts(self, expr, lhs):
        """The maximal subexpressions of `expr`, reached through elementwise
        operations only, that must be evaluated whole first."""
        found = []

        def visit(node):
            if isinstance(node, IntrinsicCall):
                if node.intrinsic.is_inquiry:
                    return
                if node.intrinsic.is_elemental:
                    for arg in node.arguments:
                        visit(arg)
                    return
                found.append(node)
                return
            if isinstance(node, Call):
                found.append(node)
                return
            if isinstance(node, Reference):
                if lhs is not None and node.symbol is lhs.symbol and \
                        node.debug_string().lower() != lhs.debug_string().lower():
                    found.append(node)
                return
            for child in node.children:
                visit(child)
        visit(expr)
        return found

    def temporary(self, part):
        """A local to hold the value of `part`: a scalar, or an array of the
        WHERE's shape (allocated before, deallocated after)."""
        scalar = _scalar_type(part)
        rank = expr_rank(part)
        if isinstance(part, Call) and not isinstance(part, IntrinsicCall) and any(
                expr_rank(a) > 0 for a in part.arguments):
            # an elemental function given arrays (or a scalar result, which
            # the array holds broadcast)
            rank = len(self.indices)
        if rank == 0:
            return new_local(self.table, naming.WHERE_VALUE, scalar)
        if rank != len(self.indices):
            raise _CannotLower()
        symbol = new_local(self.table, naming.WHERE_VALUE, ArrayType(
            scalar, [ArrayType.Extent.DEFERRED] * rank))
        self.allocate(symbol)
        return symbol


def _scalar_type(expr):
    """The type of one element of `expr`'s value."""
    try:
        dtype = expr.datatype
    except Exception:  # PSyclone cannot tell
        dtype = None
    if isinstance(expr, Call) and not isinstance(expr, IntrinsicCall):
        dtype = getattr(expr.routine.symbol, "datatype", None)
    intrinsic = getattr(dtype, "intrinsic", None)
    if intrinsic in (ScalarType.Intrinsic.INTEGER, ScalarType.Intrinsic.BOOLEAN):
        return ScalarType(intrinsic, dtype.precision)
    if intrinsic not in (None, ScalarType.Intrinsic.REAL):
        raise _CannotLower()
    kind = real_kind(expr)
    if kind is None:
        raise _CannotLower()
    return real_type(kind)
