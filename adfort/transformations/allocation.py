"""Adjoints of ALLOCATE and DEALLOCATE of local work arrays.

The returning motion mirrors the arrays' lifetimes: where the recording
motion deallocated an array, the returning motion allocates it again (and
its adjoint, zeroed) with the bounds the recording pushed on the control
tape; where the recording allocated it, the returning motion deallocates
both.  Values the adjoint needs are saved before a deallocation like any
other overwrite.
"""

from psyclone.psyir.nodes import (
    ArrayReference, Assignment, IntrinsicCall, Literal, Range, Reference)
from psyclone.psyir.symbols import ScalarType

from adfort.arrays import symbol_rank
from adfort.derived import (
    STRUCTURE_REFERENCES, _member_chain, component_reference, value_type)
from adfort.exprs import INTEGER_TYPE, real_kind, real_literal
from adfort.transformations.base import ADReverseTrans
from adfort.transformations.reverser import statement_text

_ALLOCATION = ("ALLOCATE", "DEALLOCATE")


def is_allocation(node):
    """Whether `node` is an ALLOCATE or DEALLOCATE statement."""
    return isinstance(node, IntrinsicCall) and node.intrinsic.name in _ALLOCATION


def allocated_symbols(node):
    """The array symbols an ALLOCATE/DEALLOCATE statement acts on."""
    return [arg.symbol for arg in allocation_arguments(node) if isinstance(arg, Reference)]


def allocation_arguments(node):
    """The arrays an ALLOCATE/DEALLOCATE statement acts on (not its stat=
    and errmsg= variables)."""
    return [arg for name, arg in zip(node.argument_names, node.arguments) if name is None]


def status_variables(node):
    """Lower-case names of the stat= and errmsg= variables of an
    ALLOCATE/DEALLOCATE statement: it overwrites them."""
    return {arg.symbol.name.lower() for name, arg in zip(node.argument_names, node.arguments)
            if name is not None and name.lower() in ("stat", "errmsg")
            and isinstance(arg, Reference)}


def _bound(which, target, dim):
    ref = target.copy() if isinstance(target, Reference) else Reference(target)
    return IntrinsicCall.create(IntrinsicCall.Intrinsic[which], [
        ref, ("dim", Literal(str(dim), INTEGER_TYPE))])


def _component(arg):
    """``p%a%c`` for an ALLOCATE/DEALLOCATE argument naming an allocatable
    component (``p%a%c(1:n)`` in an ALLOCATE), else None."""
    if type(arg) not in STRUCTURE_REFERENCES:
        return None
    base, chain = _member_chain(arg)
    last = chain[-1]
    chain[-1] = last[0] if isinstance(last, tuple) else last
    return component_reference(arg.symbol, chain, base)


def _adjoint_component(component, symbol, reverser):
    """``p_adj%a%c`` for the allocatable real component ``p%a%c`` of the
    active local `symbol`, else None."""
    adjoint = reverser.ctx.adjoint_symbol(symbol)
    dtype = value_type(component)
    element = getattr(dtype, "elemental_type", dtype)
    if adjoint is None or symbol.is_argument or \
            getattr(element, "intrinsic", None) != ScalarType.Intrinsic.REAL:
        return None
    base, chain = _member_chain(component)
    return component_reference(adjoint, chain, base)


def _precision(dtype):
    element = getattr(dtype, "elemental_type", dtype)
    precision = getattr(element, "precision", None)
    return None if isinstance(precision, ScalarType.Precision) else precision


def _with_ranges(component, ranges):
    """`component` (``p%a%c``) with the last component subscripted."""
    base, chain = _member_chain(component)
    chain[-1] = (chain[-1], ranges)
    return component_reference(component.symbol, chain, base)


def reverse_allocation(node, reverser):
    """Return (recording, returning) statements for ALLOCATE/DEALLOCATE."""
    arguments = allocation_arguments(node)
    symbols = [arg.symbol for arg in arguments if isinstance(arg, Reference)]
    components = [_component(arg) for arg in arguments if isinstance(arg, Reference)]
    adjoints = [None if component is not None else reverser.ctx.adjoint_symbol(s)
                for s, component in zip(symbols, components)]
    # An active local's allocatable component: its adjoint's follows it.
    adjoint_components = [_adjoint_component(c, s, reverser) if c is not None else None
                          for s, c in zip(symbols, components)]
    text = statement_text(node)
    # stat= and errmsg= variables it overwrites, saved as a call's results.
    saved, restored = [], []
    for name in sorted(n for key, n in reverser.plan.taped_calls if key == id(node)):
        save, restore = reverser.tapes.save(Reference(reverser.ctx.table.lookup(name)))
        saved += save
        restored = restore + restored
    if node.intrinsic.name == "ALLOCATE":
        gone = [c if c is not None else Reference(s) for s, c in zip(symbols, components)]
        gone += [Reference(a) for a in adjoints if a is not None]
        gone += [c for c in adjoint_components if c is not None]
        ret = [IntrinsicCall.create(IntrinsicCall.Intrinsic.DEALLOCATE, gone)] + restored
        reverser.comment(ret, text)
        return saved + [node.detach()], ret
    rec, ret = list(saved), list(restored)
    control = reverser.tapes.control
    for symbol, component, adjoint, adjoint_component in zip(symbols, components, adjoints,
                                                               adjoint_components):
        target = component if component is not None else symbol
        rank = len(value_type(component).shape) if component is not None \
            else symbol_rank(symbol)
        bounds = []
        for dim in range(1, rank + 1):
            bounds += [_bound("LBOUND", target, dim), _bound("UBOUND", target, dim)]
        push, token = control.push(bounds)
        rec.extend(push)
        pops, values = control.pop(token)
        ranges = [Range.create(values[2 * d], values[2 * d + 1]) for d in range(rank)]
        if component is not None:
            again = [_with_ranges(component, [r.copy() for r in ranges])]
        else:
            again = [ArrayReference.create(symbol, [r.copy() for r in ranges])]
        if adjoint is not None:
            again.append(ArrayReference.create(adjoint, [r.copy() for r in ranges]))
        if adjoint_component is not None:
            again.append(_with_ranges(adjoint_component, [r.copy() for r in ranges]))
        restore = []
        if (id(node), symbol.name.lower()) in reverser.plan.taped_arrays:
            save, restore = reverser.tapes.save(
                component.copy() if component is not None else Reference(symbol))
            rec.extend(save)
        block = pops + [IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, again)]
        if adjoint is not None:
            block.append(Assignment.create(Reference(adjoint),
                                           real_literal(0, real_kind(adjoint))))
        if adjoint_component is not None:
            block.append(Assignment.create(adjoint_component.copy(), real_literal(
                0, _precision(value_type(component)))))
        ret = block + restore + ret
    rec.append(node.detach())
    reverser.comment(ret, text)
    return rec, ret


class ADReverseAllocationTrans(ADReverseTrans):
    """Adjoint of an ALLOCATE or DEALLOCATE statement."""

    node_type = IntrinsicCall

    def reverse(self, node, reverser):
        """Return the (recording, returning) statements of `node`."""
        self.validate(node)
        return reverse_allocation(node, reverser)
