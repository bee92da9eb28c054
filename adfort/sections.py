"""The sections of its array arguments a callee may change, in the terms
of a caller.

A caller saving what a call may overwrite (the split schedule keeps the
values its later adjoints read; the joint schedule puts back what the
callee reads on entry before running it again) needs only the elements the
callee can change.  A boundary routine setting the edges of a 2-D field
(``u(1, j) = 0`` and ``u(nx+1, j) = 0`` in a loop over ``j``) changes a few
hundred elements of an array of forty thousand: saving it whole around every
call made the tape a hundred times larger than it needs to be.

The summary of a dummy array is a list of rectangular sections, one per
assignment of its elements, each dimension either a range ``lo:hi`` or
unknown (the whole dimension):

- a subscript ``i + c`` of a DO loop over ``i`` with a literal unit step
  and bounds reading only literals and integer dummies the callee never
  changes covers ``start+c : stop+c``;
- a subscript reading only such dummies and literals is one element;
- a range ``lo:hi`` of such is itself;
- anything else covers its whole dimension.

A write that may be skipped (under an IF, after a CYCLE…: ``do n = 0,
ncat`` setting ``g(n)`` of ``g(ncat)`` only for ``n > 0``) has its section
kept within the dummy's declared bounds (:mod:`adfort.within_bounds`), or
covers the whole dimension when those bounds are not known in these terms.

The dummy given whole to a routine the callee calls contributes that
routine's summary in the callee's terms.  Assigned whole, read or written
by an I/O statement, an intrinsic subroutine or a code block, with a
pointer or target attribute, or of more than ``_MAX_SECTIONS`` sections,
the dummy has no summary: the caller saves the whole actual, as before.

At a call the sections are written in the caller's terms (each dummy
replaced by its actual argument) when the actual is the whole array with
the dummy's shape (an explicit-shape dummy whose bounds, so translated,
are the actual's declared bounds; an assumed-shape dummy of an array
whose lower bounds are 1) and what the subscripts then read is constant in
the caller: literals, named constants and arguments the caller never
changes (the returning motion receives those as the recording had them).
Saving more than is changed is harmless; saving less would lose values, so
every doubt falls back to the whole array.
"""

import re

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, BinaryOperation, Call, CodeBlock, IntrinsicCall, Literal,
    Loop, Range, Reference, Schedule, UnaryOperation)
from psyclone.psyir.symbols import ArrayType, DataSymbol, ScalarType

from adfort import naming
from adfort.fresh_elements import _offset, unit_step
from adfort.optional import callee_formals, matched_formals
from adfort.reach import _in_caller, _plus
from adfort.within_bounds import clamped, surely_written

_MAX_SECTIONS = 8
_INTEGER = ScalarType.Intrinsic.INTEGER


def formal_sections(unit, formal, _seen=None):
    """The sections of array dummy `formal` that routine `unit` may change,
    in its own terms: a list of per-dimension ``(lo, hi)`` pairs (PSyIR
    expressions reading only literals and integer dummies the routine never
    changes) or None (the whole dimension); None when unknown.

    Memoised on the unit: the generated motions empty the working copy, so
    the container asks before generating (as for ``writes_formal``).
    """
    return _memoised(unit, "_sections", formal, _formal_sections, None, _seen)


def _memoised(unit, key, formal, compute, unknown, seen):
    """``compute(unit, formal, seen)`` remembered on the unit under `key`
    per dummy; `unknown` for a recursive call (asked again while computed)."""
    memo = unit.__dict__.setdefault(key, {})
    name = formal.name.lower()
    if name not in memo:
        seen = seen if seen is not None else set()
        if (id(unit), key, name) in seen:
            return unknown
        seen.add((id(unit), key, name))
        memo[name] = compute(unit, formal, seen)
    return memo[name]


def _formal_sections(unit, formal, seen):
    dtype = formal.datatype
    if getattr(unit, "opaque", False) or not isinstance(dtype, ArrayType) or \
            getattr(dtype, "is_allocatable", False) or getattr(dtype, "is_pointer", False) or \
            not isinstance(getattr(dtype, "intrinsic", None), ScalarType.Intrinsic) or \
            dtype.intrinsic == ScalarType.Intrinsic.CHARACTER:
        return None   # (a string's element writes may be substrings)
    if formal.name.lower() in (getattr(unit, "attributes", None) or {}):
        return None   # a pointer or target: written through aliases too
    sections = _written_sections(unit, formal.name.lower(), dtype.shape,
                                 lambda call, ref: _nested(unit, call, ref, seen))
    return None if sections is None else _distinct(sections)


def _written_sections(unit, name, shape, nested):
    """The sections of array `name` (declared with `shape`) the statements
    of `unit` assign (a list, see :func:`formal_sections`), or None when
    unknown.

    :param nested: ``nested(call, ref)``: the sections a call given `ref`
        (a reference to the array) may change, or None when unknown.
    """
    work = unit.work
    rank = len(shape)
    for block in work.walk(CodeBlock):
        if _named(" ".join(str(n).lower() for n in block.parse_tree_nodes), name):
            return None
    fixed = _fixed_formals(unit)
    sections = []
    for ref in work.walk(Reference):
        if ref.symbol.name.lower() != name:
            continue
        parent = ref.parent
        if isinstance(parent, Assignment) and ref is parent.lhs:
            if parent.is_pointer or type(ref) is not ArrayReference or \
                    len(ref.indices) != rank:
                return None
            sections.append(_section(ref, shape, fixed))
        elif isinstance(parent, IntrinsicCall):
            if isinstance(parent.parent, Schedule):
                return None   # an intrinsic subroutine may write it
        elif isinstance(parent, Call) and ref is not parent.routine:
            found = nested(parent, ref)
            if found is None:
                return None
            sections.extend(found)
        elif isinstance(parent, Loop) and ref is parent.variable:
            return None
    return sections


def _named(text, name):
    return re.search(r"\b%s\b" % re.escape(name), text) is not None


def _fixed_formals(unit):
    """Lower-case names of the integer scalar dummies `unit` never changes."""
    fixed = set()
    for formal in unit.formals:
        if formal is unit.result or not isinstance(formal, DataSymbol):
            continue
        dtype = formal.datatype
        if isinstance(dtype, ScalarType) and dtype.intrinsic == _INTEGER and \
                not unit.writes_formal(formal):
            fixed.add(formal.name.lower())
    return fixed


def _invariant(expr, fixed):
    """`expr` with the named integer constants of literal value folded in,
    when it reads only literals and the `fixed` dummies; else None."""
    if not isinstance(expr, (Literal, Reference, BinaryOperation, UnaryOperation)):
        return None
    expr = expr.copy()
    for node in expr.walk((Call, Reference)):
        if isinstance(node, Call):
            return None
    for ref in expr.walk(Reference):
        symbol = ref.symbol
        if type(ref) is not Reference:
            return None
        if ref.symbol.name.lower() in fixed:
            continue
        value = getattr(symbol, "initial_value", None)
        if getattr(symbol, "is_constant", False) and isinstance(value, Literal) and \
                value.value.isdigit():
            if ref is expr:
                expr = value.copy()
            else:
                ref.replace_with(value.copy())
            continue
        return None
    for literal in expr.walk(Literal):
        if not isinstance(literal.datatype, ScalarType) or \
                literal.datatype.intrinsic != _INTEGER:
            return None
    return expr


def _section(ref, shape, fixed):
    """The section element write `ref` covers: per dimension (lo, hi) or
    None (the whole dimension), kept within the array's declared `shape`
    when the write may be skipped (:mod:`adfort.within_bounds`: ``do n =
    0, ncat`` setting ``g(n)`` of ``g(ncat)`` under ``if (n > 0)`` covers
    ``g(1:ncat)``)."""
    found = [_dimension(index, ref, fixed) for index in ref.indices]
    dims = [None if f is None else f[0] for f in found]
    covering = [f[1] for f in found if f is not None and f[1] is not None]
    if surely_written(ref, covering):
        return dims
    return [None if bounds is None else _within(bounds, dim, fixed)
            for bounds, dim in zip(dims, shape)]


def _within(bounds, dim, fixed):
    """(lo, hi) clamped to declared dimension `dim`, or None (the whole
    dimension) when its bounds are not known in the routine's terms."""
    if not isinstance(dim, ArrayType.ArrayBounds) or isinstance(dim.upper, ArrayType.Extent):
        return None   # assumed shape: the whole dimension
    least = _invariant(dim.lower, fixed)
    if naming.ASSUMED_SIZE in str(dim.upper):
        greatest = None   # (x(*): no upper bound to stay within)
    else:
        greatest = _invariant(dim.upper, fixed)
        if greatest is None:
            return None
    if least is None:
        return None
    return clamped(bounds[0], bounds[1], least, greatest)


def _dimension(index, ref, fixed):
    """((lo, hi), the DO loop giving the range, or None) covered by
    subscript `index` of element write `ref`, or None (the whole
    dimension)."""
    if isinstance(index, Range):
        if not (isinstance(index.step, Literal) and index.step.value == "1"):
            return None
        lo, hi = _invariant(index.start, fixed), _invariant(index.stop, fixed)
        if lo is None or hi is None or _inquiry(index.start) or _inquiry(index.stop):
            return None
        return (lo, hi), None
    point = _invariant(index, fixed)
    if point is not None:
        return (point, point.copy()), None
    loop = ref.ancestor(Loop)
    while loop is not None:
        offset = _offset(index, loop.variable.name.lower())
        if offset is not None:
            break
        loop = loop.ancestor(Loop)
    if loop is None or unit_step(loop) is None:
        return None
    first, last = loop.start_expr, loop.stop_expr
    if unit_step(loop) < 0:
        first, last = last, first
    first, last = _invariant(first, fixed), _invariant(last, fixed)
    if first is None or last is None:
        return None
    return (_plus(first, offset), _plus(last, offset)), loop


def _inquiry(expr):
    return isinstance(expr, IntrinsicCall)


def _nested(unit, call, ref, seen):
    """The sections a call in `unit` may change of its dummy `ref` (given
    whole), in `unit`'s terms; [] when the callee does not change it;
    None when unknown."""
    if isinstance(call, IntrinsicCall):
        return []
    callee = unit.calls.get(id(call))
    if callee is None:
        return None   # no source, or passive: what it changes is unknown
    formals = matched_formals(call, callee_formals(callee))
    position = next((p for p, a in enumerate(call.arguments) if a is ref), None)
    if position is None or position >= len(formals) or formals[position] is None:
        return None
    formal = formals[position]
    if not callee.writes_formal(formal):
        return []
    if type(ref) is not Reference:
        return None
    fixed = _fixed_formals(unit)
    return in_caller(ref, formal, callee, call, lambda n: n in fixed, seen)


def in_caller(actual, formal, callee, call, fixed, _seen=None):
    """The sections of whole array `actual` that `call` (to `callee`,
    `actual` given for `formal`) may change, in the caller's terms, or None
    (the whole array).

    :param fixed: ``fixed(name)``: whether the caller's variable `name`
        (lower case) holds one value throughout the caller.
    :returns: list of per-dimension ``(lo, hi)`` pairs or None (the whole
        dimension).
    """
    symbol = getattr(actual, "symbol", None)
    adtype = getattr(symbol, "datatype", None)
    if type(actual) is not Reference or not isinstance(adtype, ArrayType) or \
            getattr(adtype, "is_allocatable", False) or \
            getattr(adtype, "is_pointer", False):
        return None
    sections = formal_sections(callee, formal, _seen)
    if sections is None or len(formal.datatype.shape) != len(adtype.shape):
        return None
    formals = matched_formals(call, callee_formals(callee))
    given = {f.name.lower(): a for f, a in zip(formals, call.arguments) if f is not None}
    if not _same_shape(formal, adtype, given, fixed):
        return None
    return _mapped(sections, given, fixed)


def _given(call, callee):
    """{callee dummy name: actual argument} of `call`."""
    formals = matched_formals(call, callee_formals(callee))
    return {f.name.lower(): a for f, a in zip(formals, call.arguments) if f is not None}


def _mapped(sections, given, fixed):
    """Callee `sections` in the caller's terms (:func:`_translated`), or
    None when a bound cannot be."""
    mapped = []
    for section in sections:
        dims = []
        for bounds in section:
            if bounds is None:
                dims.append(None)
                continue
            lo, hi = (_translated(b, given, fixed) for b in bounds)
            if lo is None or hi is None:
                return None
            dims.append((lo, hi))
        mapped.append(dims)
    return _distinct(mapped)


def _translated(expr, given, fixed):
    """Callee expression `expr` (literals and integer dummies) in the
    caller's terms, reading only what `fixed` says is constant there."""
    if isinstance(expr, IntrinsicCall) and expr.intrinsic in (
            IntrinsicCall.Intrinsic.MAX, IntrinsicCall.Intrinsic.MIN):
        # A section kept within the callee's declared bounds.
        arguments = [_translated(a, given, fixed) for a in expr.arguments]
        if any(a is None for a in arguments):
            return None
        return IntrinsicCall.create(expr.intrinsic, arguments)
    expr = _in_caller(expr, given)
    if expr is None:
        return None
    for ref in expr.walk(Reference):
        if not (getattr(ref.symbol, "is_constant", False) or fixed(ref.symbol.name.lower())):
            return None
    return expr


def _same_shape(formal, adtype, given, fixed):
    """Whether element (i, j, …) of the dummy is element (i, j, …) of the
    actual: the same bounds in every dimension."""
    for fdim, adim in zip(formal.datatype.shape, adtype.shape):
        if not isinstance(adim, ArrayType.ArrayBounds) or \
                not isinstance(adim.lower, (Literal, Reference, BinaryOperation)):
            return False
        if isinstance(fdim, ArrayType.ArrayBounds):
            lower = _translated(fdim.lower, given, fixed)
            if lower is None or not _equal(lower, adim.lower):
                return False
            if isinstance(fdim.upper, ArrayType.Extent):
                continue   # assumed shape with a declared lower bound
            upper = _translated(fdim.upper, given, fixed)
            if upper is None or not isinstance(adim.upper, (Literal, Reference,
                                                              BinaryOperation)) \
                    or not _equal(upper, adim.upper):
                return False
        elif fdim in (ArrayType.Extent.ATTRIBUTE, ArrayType.Extent.DEFERRED):
            if not (isinstance(adim.lower, Literal) and adim.lower.value == "1"):
                return False
        else:
            return False
    return True


def _equal(left, right):
    from adfort.known_zero import structural_key
    return structural_key(left) == structural_key(right)


def _distinct(sections):
    """`sections` without repeats, adjacent ones merged, or None when
    there are too many."""
    from adfort.known_zero import structural_key
    found, keys = [], set()
    for section in sections:
        key = tuple(None if b is None else (structural_key(b[0]), structural_key(b[1]))
                    for b in section)
        if key not in keys:
            keys.add(key)
            found.append(section)
    found = _merged(found)
    if len(found) > _MAX_SECTIONS:
        return None
    return found


def _follows(first, second):
    """Whether the range `second` starts just after `first` ends
    (``1:n-1`` then ``n:n``)."""
    from adfort.known_zero import structural_key
    return structural_key(_plus(first[1].copy(), 1)) == structural_key(second[0])


def _merged(sections):
    """`sections` with any two that differ in one dimension only, where
    one range follows the other, made one (a back substitution's ``x(n)``
    and ``x(1:n-1)`` are all of ``x``: saved whole, in one piece)."""
    from adfort.known_zero import structural_key

    def key(bounds):
        return None if bounds is None else (structural_key(bounds[0]),
                                            structural_key(bounds[1]))
    sections = list(sections)
    changed = True
    while changed:
        changed = False
        for i, one in enumerate(sections):
            for j, other in enumerate(sections):
                if i == j or len(one) != len(other):
                    continue
                differ = [d for d in range(len(one)) if key(one[d]) != key(other[d])]
                if len(differ) != 1 or one[differ[0]] is None or other[differ[0]] is None:
                    continue
                d = differ[0]
                if _follows(one[d], other[d]):
                    joined = list(one)
                    joined[d] = (one[d][0], other[d][1])
                    sections = [s for k, s in enumerate(sections) if k not in (i, j)]
                    sections.insert(min(i, j), joined)
                    changed = True
                    break
            if changed:
                break
    return sections


def section_references(actual, sections):
    """The references a save of `sections` of `actual` takes: ``a(lo:hi,
    :)``…, or [`actual`] when a section is the whole array."""
    symbol = actual.symbol
    shape = symbol.datatype.shape
    refs = []
    for section in sections:
        if all(b is None or _whole_dimension(b, dim) for b, dim in zip(section, shape)):
            return [actual.copy()]
        # (One element of a dimension stays a range, a(1:1, :): the section
        # keeps its rank and is saved as an array.)
        refs.append(ArrayReference.create(symbol, [
            ":" if bounds is None else Range.create(bounds[0].copy(), bounds[1].copy())
            for bounds in section]))
    return refs


def _whole_dimension(bounds, dim):
    return isinstance(dim, ArrayType.ArrayBounds) and _equal(bounds[0], dim.lower) and \
        not isinstance(dim.upper, ArrayType.Extent) and _equal(bounds[1], dim.upper)


def sets_every_element(unit, formal, _seen=None):
    """Whether routine `unit` surely assigns every element of its array
    dummy `formal`: at its top level, assigning it whole (``u = unew``) or
    giving it whole to a routine that surely does, through a dummy of the
    same bounds.  False when unknown.  Memoised on the unit, as
    :func:`formal_sections`."""
    return _memoised(unit, "_sets_every_element", formal, _sets_every_element, False, _seen)


def _sets_every_element(unit, formal, seen):
    if getattr(unit, "opaque", False) or not isinstance(formal.datatype, ArrayType):
        return False
    name = formal.name.lower()
    fixed = _fixed_formals(unit)
    for stmt in unit.work.children:
        if isinstance(stmt, Assignment) and not stmt.is_pointer and \
                type(stmt.lhs) is Reference and stmt.lhs.symbol.name.lower() == name:
            return True
        callee = unit.calls.get(id(stmt)) if isinstance(stmt, Call) and \
            not isinstance(stmt, IntrinsicCall) else None
        if callee is None:
            continue
        given = _given(stmt, callee)
        for actual, dummy in zip(stmt.arguments, matched_formals(stmt, callee_formals(callee))):
            if dummy is not None and type(actual) is Reference and \
                    actual.symbol.name.lower() == name and \
                    isinstance(dummy.datatype, ArrayType) and \
                    len(dummy.datatype.shape) == len(formal.datatype.shape) and \
                    _same_shape(dummy, formal.datatype, given, lambda n: n in fixed) and \
                    sets_every_element(callee, dummy, seen):
                return True
    return False


def global_sections(unit, name, _seen=None):
    """The sections of the module (or COMMON) array `name` that `unit` and
    the routines it calls may change, in `unit`'s terms (as
    :func:`formal_sections`: subscripts reading literals and the integer
    dummies it never changes), or None when unknown.

    A routine naming the array in a call, an intrinsic subroutine, an I/O
    or code block, assigning it whole, declaring it (a COMMON member) with
    other extents than its block's layout, or calling a routine adfort
    cannot see, gives no summary. Memoised on the unit (asked before the
    motions empty the working copy).
    """
    memo = unit.__dict__.setdefault("_global_sections", {})
    name = name.lower()
    if name not in memo:
        seen = _seen if _seen is not None else set()
        if (id(unit), name) in seen:
            return None   # recursion: unknown
        seen.add((id(unit), name))
        memo[name] = _global_sections(unit, name, seen)
    return memo[name]


def _global_sections(unit, name, seen):
    if getattr(unit, "opaque", False):
        return None
    found = unit.module_variable(name)
    layout = getattr(found[1], "datatype", None) if found else None
    if not isinstance(layout, ArrayType) or getattr(layout, "is_allocatable", False) or \
            getattr(layout, "is_pointer", False) or \
            getattr(layout, "intrinsic", None) == ScalarType.Intrinsic.CHARACTER:
        return None
    work = unit.work
    local = work.symbol_table.lookup(name, otherwise=None)
    if local is not None and isinstance(getattr(local, "datatype", None), ArrayType) and \
            not same_extents(local.datatype, layout):
        return None   # a COMMON member declared with other extents here
    # (Given to a dummy, it would be changed under another name: unknown.)
    sections = _written_sections(unit, name, layout.shape, lambda call, ref: None)
    if sections is None:
        return None
    fixed = _fixed_formals(unit)
    for call in work.walk(Call):
        if isinstance(call, IntrinsicCall):
            continue   # (an intrinsic subroutine given it: unknown, above)
        callee = unit.calls.get(id(call))
        if callee is None:
            return None   # what it changes is unknown
        nested = global_sections(callee, name, seen)
        if nested is None:
            return None
        mapped = _mapped(nested, _given(call, callee), lambda n: n in fixed)
        if mapped is None:
            return None
        sections.extend(mapped)
    return _distinct(sections)


def same_extents(one, other):
    """Whether array types `one` and `other` have the same bounds (named
    integer constants folded)."""
    if len(one.shape) != len(other.shape):
        return False
    for a, b in zip(one.shape, other.shape):
        if not (isinstance(a, ArrayType.ArrayBounds) and isinstance(b, ArrayType.ArrayBounds)):
            return False
        for x, y in ((a.lower, b.lower), (a.upper, b.upper)):
            x, y = _invariant(x, set()), _invariant(y, set())
            if x is None or y is None or not _equal(x, y):
                return False
    return True


def global_in_caller(callee, name, call, fixed):
    """The sections of module array `name` that `call` (to `callee`) may
    change, in the caller's terms (reading only what `fixed` says holds
    one value), or None (the whole array)."""
    sections = global_sections(callee, name)
    if sections is None:
        return None
    return _mapped(sections, _given(call, callee), fixed)
