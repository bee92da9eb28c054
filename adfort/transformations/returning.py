"""The returning motion's statements, put together and tidied.

After the statements of the hand-over (the locals the recording motion left
on the tape) come the zeroings of the adjoints of the routine's own
variables, the adjoint of the body and the restores of arguments from
their entry copies.  Then:

- an increment of an adjoint known to be zero is an assignment
  (:mod:`adfort.known_zero`);
- a store nothing reads is dropped (:func:`adfort.liveness.lean_returning`);
- the increments of one adjoint element are gathered into one
  (:mod:`adfort.increments`).
"""

from psyclone.psyir.nodes import ArrayReference, IntrinsicCall, Reference
from psyclone.psyir.symbols import ArrayType

from adfort.derived import zero_statements
from adfort.increments import merge_increments
from adfort.known_zero import simplify_known_zero
from adfort.liveness import lean_returning
from adfort.transformations.building import _assumed_shape


def returning_statements(ctx, spec, table, taken, parts, active_args, arg_names, sections):
    """The statements of the returning motion (a list).

    :param ctx: the routine's :class:`adfort.context.ADContext`.
    :param spec: what the routine is differentiated for (its RoutineSpec).
    :param table: the working symbol table.
    :param taken: names generated names must avoid.
    :param parts: (hand-over restores, adjoint of the body, restores from
        entry copies), lists of statements.
    :param active_args: lower-case names of the arguments with adjoints.
    :param arg_names: lower-case names of all the arguments.
    :param sections: {name: the section a local work array is set on}.
    """
    final_ret, body_ret, entry_ret = parts
    ret_body = list(final_ret)
    zeroings = []
    for name, adj in sorted(ctx.adjoints.items()):
        # Allocatable adjoints are zeroed where they are allocated; module
        # variables' adjoints belong to the caller, or, for the routine
        # differentiated, to the user when they are dependents/independents.
        internal_module = (name in ctx.module_adjoints and not spec.callee
                           and name not in spec.module_roles)
        if (name not in active_args and (name not in ctx.module_adjoints or internal_module)
                and not getattr(adj.datatype, "is_allocatable", False)
                and spec.attributes.get(name) != "POINTER"):
            if _assumed_shape(adj):
                # The adjoint of an assumed-shape argument that is neither
                # dependent nor independent: a local of the argument's shape.
                zeroings.append(IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
                    Reference(adj), ("mold", Reference(table.lookup(name)))]))
            zeroings.extend(_zeroed(adj, sections.get(name))
                            or zero_statements(adj, table, taken))
    # Increments of adjoints still zero are assignments (adfort.known_zero).
    zeroings, body_ret = simplify_known_zero(
        zeroings, body_ret, {ctx.adjoints[n].name.lower() for n in ctx.adjoints
                             if n not in ctx.module_adjoints})
    ret_body.extend(zeroings)
    ret_body.extend(body_ret)
    ret_body.extend(entry_ret)
    if "POINTER" not in spec.attributes.values():
        # Stores nothing reads (adfort.liveness), then each adjoint
        # element's increments gathered (adfort.increments).
        shared = {ctx.adjoints[n].name.lower() for n in ctx.adjoints
                  if n in active_args or n in ctx.module_adjoints}
        ret_body = lean_returning(ret_body, table, shared | set(arg_names))
        body_ids = {id(s) for s in body_ret}
        at = [k for k, s in enumerate(ret_body) if id(s) in body_ids]
        if at:
            body = merge_increments(ret_body[at[0]:at[-1] + 1], shared,
                                    ctx.scalar_temporaries(), ctx.free_temporary)
            ret_body[at[0]:at[-1] + 1] = body
    return ret_body


def _zeroed(adj, section):
    """``a_adj(lo:hi) = 0`` for the adjoint `adj` of a local work array the
    routine only ever sets on `section` (FORTRAN 77: ``X(NMAX)`` used on
    ``1:N``; see :func:`adfort.reach.written_section`), or None.  A local
    is read only where it was set first, and its adjoint is read only where
    the local was set: the other elements' adjoints are never read, so
    zeroing them would only cost time (all of NMAX on every call)."""
    if section is None or not isinstance(adj.datatype, ArrayType):
        return None
    zero = zero_statements(adj)[0]
    zero.lhs.replace_with(ArrayReference.create(adj, [i.copy() for i in section.indices]))
    return [zero]
