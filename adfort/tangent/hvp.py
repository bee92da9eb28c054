"""Hessian-vector products: forward over reverse.

For a scalar dependent y of routine r with independents x, ``r_hvp`` is
the tangent of the adjoint: adfort first writes reverse mode's ``r_rev``
(and the motions and tapes it uses), then differentiates that generated
code in tangent mode with respect to x, taking the adjoints ``x_adj`` as
dependents.  Seeded with ``y_adj = 1`` and a direction ``x_d = v``, it
returns ``x_adj_d = H·v`` besides the gradient ``x_adj`` and y.  The
value tape's pushes and pops get tangents like any other assignment (a
tangent tape ``value_tape_d`` runs alongside the value tape), so every
construct and schedule of reverse mode that tangent mode can read carries
over.

Calling convention: ``r_hvp`` takes the arguments of ``r_rev`` in order,
each independent ``x`` followed by ``x_d`` (the direction, intent(in)),
its adjoint ``x_adj`` (the gradient, incremented) followed by ``x_adj_d``
(the Hessian-vector product, incremented).  It lives in module ``m_hvp``
(``m`` the original module), the routines it calls there too
(``r_rec_fwd``…).
"""

import os
import re
import tempfile

from psyclone.configuration import Config
from psyclone.psyir.nodes import (
    BinaryOperation, Call, Container, IfBlock, IntrinsicCall, Literal, Reference, Routine,
    UnaryOperation)
from psyclone.psyir.symbols import ContainerSymbol, RoutineSymbol

from adfort import naming
from adfort.arrays import symbol_rank
from adfort.exprs import INTEGER_TYPE
from adfort.errors import AdfortError
from adfort.tangent.build import ADTangentContainerTrans, TangentBuild, TangentHost


class HvpHost(TangentHost):
    """Where the routines of the tangent of the adjoint go: the top routine
    (``r_rev``'s tangent) is ``r_hvp``."""

    def names(self, unit):
        names = super().names(unit)
        if unit is self.build.top:
            name = naming.hvp(self.build.primal_name)
            naming.check_length(name, "the Hessian-vector product routine",
                                self.build.primal_name,
                                naming.MAX_NAME_LENGTH - len(naming.HVP_SUFFIX),
                                self.build.filename)
            names["fwd"] = name
            names["taken"] = names["taken"] | {name}
        return names


class HvpBuild(TangentBuild):
    """Tangent mode over the generated adjoint."""

    host_class = HvpHost
    #: the differentiated routine's own name (r, not r_rev)
    primal_name = None

    #: the dependent of the differentiated routine
    primal_dependent = None

    def _generate(self):
        # {name of a tape's reserve routine's tangent: [the tape's name]}
        self._tapes = {}
        for module, name in self.activity.active_modules():
            if _is_tape(module, name):
                reserve = naming.forward(naming.tape_reserve(name)).lower()
                self._tapes.setdefault(reserve, []).append(name)
        symbol = self.top.work.symbol_table.lookup(self.primal_dependent, otherwise=None)
        if symbol is not None and symbol_rank(symbol) > 0:
            raise AdfortError(
                f"--mode hvp needs a scalar dependent: '{self.primal_dependent}' is an "
                "array (take the Hessian of a scalar function of it, e.g. a cost)",
                self.filename)
        result = super()._generate()
        for routine in result.walk(Routine):
            for tape in self._tapes.get(routine.name.lower(), ()):
                _sync_tape(routine, tape)
        # The routines of m_ad that are called as they are (tape reserves
        # of other types, passive callees) come from m_ad itself.
        for container in result.walk(Container):
            for module in self.program.modules():
                adjoint = module + naming.MODULE_SUFFIX
                if self.host_key(adjoint) == module and self.program.module(adjoint) \
                        is not None and container.name.lower() == \
                        self.module_output_name(module).lower():
                    used = ContainerSymbol(self.program.module(adjoint).name)
                    used.wildcard_import = True
                    if used.name.lower() not in container.symbol_table:
                        container.symbol_table.add(used)
        return result

    def entry_statements(self):
        """``r_hvp`` first sizes every tangent tape like its value tape."""
        return [Call.create(RoutineSymbol(reserve), [Literal("0", INTEGER_TYPE)])
                for reserve in sorted(self._tapes)]

    def zeroed_on_entry(self, module, name):
        """Not the value tapes: each pop reads what a push wrote; their
        tangents are allocated by the tape's reserve routine (several
        modules may each have a ``value_tape``)."""
        return not _is_tape(module, name)

    def host_key(self, module):
        """Module ``m_ad`` (the adjoint's routines, its variables' adjoints)
        and module ``m`` (the variables) have one generated module, ``m_hvp``."""
        if module is not None and module.endswith(naming.MODULE_SUFFIX) and \
                self.program.module(module[:-len(naming.MODULE_SUFFIX)]) is not None:
            return module[:-len(naming.MODULE_SUFFIX)]
        return module

    def module_output_name(self, module):
        found = self.program.module(module)
        return naming.hvp_module(found.name if found is not None else module)


def _is_tape(module, name):
    """Whether `module::name` is a value tape of the generated adjoint."""
    return name.startswith(naming.VALUE_TAPE) and (
        module.endswith(naming.MODULE_SUFFIX) or module.endswith(naming.TAPE_MODULE_SUFFIX))


def _sync_tape(routine, tape):
    """Start `routine` (a tape's reserve routine's tangent) by giving the
    tangent tape the value tape's size when it has not: the value tape may
    have been allocated, or grown, by calls of ``r_rev`` since the last
    ``r_hvp``; within one ``r_hvp`` they grow together."""
    table = routine.symbol_table
    primal = table.lookup(tape)
    tangent = table.lookup(naming.tangent(tape))

    def size(symbol):
        return IntrinsicCall.create(IntrinsicCall.Intrinsic.SIZE, [Reference(symbol)])

    def allocated(symbol):
        return IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATED, [Reference(symbol)])

    # Nested tests: Fortran may evaluate both sides of .OR., and SIZE of an
    # unallocated array is an error (-fcheck=all stops there).
    stale = BinaryOperation.create(BinaryOperation.Operator.NE, size(tangent), size(primal))
    release = IfBlock.create(allocated(tangent), [IfBlock.create(stale, [
        IntrinsicCall.create(IntrinsicCall.Intrinsic.DEALLOCATE, [Reference(tangent)])])])
    renew = IfBlock.create(
        UnaryOperation.create(UnaryOperation.Operator.NOT, allocated(tangent)),
        [IntrinsicCall.create(IntrinsicCall.Intrinsic.ALLOCATE, [
            Reference(tangent), ("mold", Reference(primal))])])
    block = IfBlock.create(allocated(primal), [release, renew])
    routine.addchild(block, 0)


class ADHvpContainerTrans(ADTangentContainerTrans):
    """The tangent of a generated adjoint (see the module's docstring).

    :param primal_name: the name of the routine whose adjoint is read.
    :param primal_dependent: its dependent.
    """

    build = HvpBuild

    def __init__(self, *args, primal_name=None, primal_dependent=None, **keywords):
        super().__init__(*args, **keywords)
        self.primal_name = primal_name
        self.primal_dependent = primal_dependent

    def build_class(self, *args, **keywords):
        build = super().build_class(*args, **keywords)
        build.primal_name = self.primal_name
        build.primal_dependent = self.primal_dependent
        return build


def _adjoint_names(text, rev, independents):
    """The names ``rev`` gives the independents' adjoints in `text`: the
    argument after each (``x_adj``, or ``x_adj_1`` when the routine has an
    ``x_adj`` of its own)."""
    found = re.search(rf"^\s*subroutine\s+{rev}\s*\((.*?)\)", text,
                      re.IGNORECASE | re.MULTILINE | re.DOTALL)
    arguments = [a.strip().lower() for a in
                 found.group(1).replace("&", " ").split(",")] if found else []
    names = []
    for name in independents:
        position = arguments.index(name.lower()) if name.lower() in arguments else -1
        names.append(arguments[position + 1] if 0 <= position < len(arguments) - 1
                     else naming.adjoint(name))
    return names


def _one_dependent(path, dependents):
    """Raise unless there is one dependent (its rank is checked by
    :meth:`HvpBuild._generate`)."""
    if len(dependents) != 1:
        raise AdfortError(f"--mode hvp needs one scalar dependent (the function whose "
                          f"Hessian is taken), not {len(dependents)}: "
                          f"{', '.join(dependents)}", path)


def hessian_vector_file(path, dependents, independents, schedule, routine=None, options=None,
                        search_path=(), extra_files=(), adjoint_libraries=(),
                        passive_routines=(), defines=(), undefines=(), cpp=False, form=None,
                        cache=None):
    """(Fortran text of ``r_hvp`` and what it calls, without the header,
    routine name).

    :param: as for :func:`adfort.api.differentiate_file`.
    :raises AdfortError: for anything adfort cannot handle.
    """
    from adfort import cache as parse_cache
    from adfort.api import _differentiate, header
    _one_dependent(path, dependents)
    if any("::" in n or n.strip().startswith("/") for n in list(dependents) + list(independents)):
        raise AdfortError("--mode hvp takes arguments as dependent and independents, not "
                          "module variables or COMMON members", path)
    options = dict(options or {})
    if options.get("jacobian"):
        raise AdfortError("--jacobian is a reverse-mode option, not one of --mode hvp", path)
    # Tangent mode reads the tapes' pushes and pops as assignments.
    options["tape_copy_routines"] = False
    config = Config.get()
    named = config.backend_intrinsic_named_kwargs
    # The adjoint is read again: intrinsics' optional arguments by name
    # (SUM(a, dim=1)), which the front end asks for.
    config.backend_intrinsic_named_kwargs = True
    try:
        with parse_cache.using(cache):
            adjoint, routine, _, _ = _differentiate(
                path, dependents, independents, schedule, routine, options, search_path,
                extra_files, adjoint_libraries, passive_routines, defines, undefines, cpp,
                form)
    finally:
        config.backend_intrinsic_named_kwargs = named
    with tempfile.TemporaryDirectory(prefix="adfort-hvp-") as scratch:
        stem = os.path.splitext(os.path.basename(path))[0]
        generated = os.path.join(scratch, f"{stem}_ad.f90")
        with open(generated, "w") as out:
            out.write(header(path, routine, dependents, independents, schedule) + adjoint)
        adjoints = _adjoint_names(adjoint, naming.reversing(routine), independents)
        try:
            text, _, _, _ = _differentiate(
                generated, adjoints, list(independents), schedule, naming.reversing(routine),
                options, search_path, [path] + list(extra_files), adjoint_libraries,
                passive_routines, defines, undefines, cpp, form, mode="hvp",
                primal=(routine, dependents[0]))
        except AdfortError as err:
            if err.message.startswith("--mode hvp"):
                raise AdfortError(err.message, path) from None
            # Name the user's file, not the scratch copy of the adjoint.
            raise AdfortError(f"the Hessian-vector product differentiates the generated "
                              f"adjoint '{naming.reversing(routine)}' in tangent mode, "
                              f"which failed: {err.message}", path) from None
    return text.replace(generated, path), routine
