"""Tangent mode over a call graph: the entry point.

The call graph is read, normalised, analysed (activity) and fenced exactly
as for reverse mode (:class:`adfort.transformations.ADReverseContainerTrans`);
only generation differs: one routine ``r_fwd`` per differentiated routine,
in a module ``m_fwd`` per module ``m`` (routines outside any module stay
external subroutines), the tangents of active module variables declared
there as ``v_d``.  ``m_fwd`` and reverse mode's ``m_ad`` can be compiled
into one program.
"""

from psyclone.psyir.nodes import Routine

from adfort import naming
from adfort.errors import AdfortError, source_name, where
from adfort.interprocedural import MPI_NODE
from adfort.mpi_analysis import check_mpi_call
from adfort.frontend import read_file
from adfort.program import user_calls
from adfort.tangent.routine import TangentSpec, tangent_work
from adfort.transformations.assemble import Host, _user_globals, assemble
from adfort.transformations.call import CalleeMotions
from adfort.transformations.container import (
    ADReverseContainerTrans, _ProgramBuild, _call_statement)


class TangentHost(Host):
    """Where the ``_fwd`` routines of one module go."""

    @property
    def name(self):
        if self.module is None:
            # (Holds only helper functions: tangent mode has no tapes.)
            if getattr(self.build, "helper_module", None) is None:
                self.build.helper_module = naming.unique_name(
                    naming.tangent_helper_module(self.build.root.name),
                    set(_user_globals(self.build.program)))
            return self.build.helper_module
        return self.build.module_output_name(self.module)

    def names(self, unit):
        taken = self.build._taken(unit)
        name = naming.forward(unit.name)
        naming.check_length(name, "the tangent routine", unit.name,
                            naming.MAX_NAME_LENGTH - len(naming.FORWARD_SUFFIX),
                            where(unit.original, self.build.filename))
        if name.lower() in {t.lower() for t in taken}:
            raise AdfortError(
                f"the generated routine name '{name}' is already used: rename the "
                f"existing '{name}'", where(unit.original, self.build.filename))
        return {"fwd": name,
                "taken": taken | {name} | self.build.visible_derivative_names(unit)}


class TangentBuild(_ProgramBuild):
    """One tangent-mode differentiation of a routine and its callees."""

    host_class = TangentHost
    fence_options = {"tangent": True}
    #: {lower-case routine name: name of its user-supplied tangent}
    user_tangents = {}

    def _fence_reversal(self):
        """Nothing is run twice in tangent mode."""

    def _check_mpi_call(self, call, filename, communicating):
        """Reject an MPI call whose communication tangent mode cannot
        differentiate (the ``tangent`` rules of :data:`adfort.mpi_rules.KINDS`)."""
        check_mpi_call(call, filename, communicating, mode="tangent")

    def entry_statements(self):
        """Statements the top routine's ``_fwd`` starts with."""
        return []

    def zeroed_on_entry(self, module, name):
        """Whether the top routine starts the tangent of active module
        variable `module::name` at zero (or takes it from the user)."""
        return True

    derivative_name = staticmethod(naming.tangent)

    def module_output_name(self, module):
        found = self.program.module(module)
        return naming.forward_module(found.name if found is not None else module)

    def _generate(self):
        if self.options.get("jacobian"):
            raise AdfortError("--jacobian is built in reverse mode (r_jacobian); in tangent "
                              "mode call r_fwd once per independent direction",
                              self.filename)
        hosts, motions_of = {}, {}
        for unit in self.opaque:
            fwd = self.user_tangents.get(unit.name.lower())
            names = {"rev": unit.user_adjoint.name}
            if fwd is not None:
                names["fwd"] = fwd
            motions_of[id(unit)] = CalleeMotions(unit, names, unit.user_active, opaque=True)
        module_roles = set(self._module_roles())
        for unit in self.chosen:
            key = self.host_key(unit.module)
            host = hosts.setdefault(key, self.host_class(key, self))
            calls, clears = {}, {}
            for call in user_calls(unit.work):
                callee = unit.calls.get(id(call))
                calls[id(call)] = motions_of.get(id(callee)) if callee else None
                clears[id(_call_statement(call))] = self._passive_outputs(unit, call, callee)
            names = host.names(unit)
            module_tangents = host.module_adjoints(unit)
            zeroed = set()
            if unit is self.top:
                roles = [n.lower() for n in self.dependents + self.independents
                         if "::" not in n]
                for module, name in sorted(self.activity.active_modules()):
                    if not self.zeroed_on_entry(module, name):
                        continue
                    self._top_module_derivative(unit, module, name, module_tangents)
                    if name not in module_roles:
                        zeroed.add(name)
            else:
                roles = self._active_formals(unit)
            spec = TangentSpec(roles, self.activity.active_locals(unit), module_tangents,
                               calls, clears, zeroed, callee=unit is not self.top,
                               module_variable=unit.module_variable,
                               attributes=unit.attributes,
                               communicating=MPI_NODE in self.activity.active,
                               passive_routine=self.program.is_passive)
            if unit is self.top:
                spec.entry = self.entry_statements()
            motions = tangent_work(unit.work, spec, names,
                                   source_name(unit.original) or self.filename, self.options)
            host.add(unit, motions)
            motions_of[id(unit)] = CalleeMotions(unit, {"fwd": names["fwd"]},
                                                 self._active_formals(unit),
                                                 self.access[id(unit)][1])
            motions_of[id(unit)].dummies["fwd"] = [
                a.name for a in motions.forward.symbol_table.argument_list]
        return assemble(hosts, self)


class ADTangentContainerTrans(ADReverseContainerTrans):
    """Differentiate a routine of a Container in tangent (forward) mode,
    together with the routines it calls.

    ``apply`` takes the arguments of
    :meth:`ADReverseContainerTrans.apply` (the reversal schedule is only
    checked, tangent mode reverses nothing) and returns a new FileContainer
    holding ``r_fwd`` for the routine and each callee carrying derivatives.
    Routines without source may be given ``<name>_fwd`` tangents (next to
    their ``<name>_rev``) in the ``adjoint_libraries`` files.
    """

    build = TangentBuild

    def build_class(self, *args, **keywords):
        """The :class:`TangentBuild` of one apply(), knowing the user's tangents."""
        build = self.build(*args, **keywords)
        build.user_tangents = _user_tangents(self.adjoint_libraries, self.preprocessing)
        return build


def _user_tangents(paths, preprocessing=None):
    """{routine name: its ``<name>_fwd``} from the adjoint-library files."""
    found = {}
    for path in paths:
        for routine in read_file(path, preprocessing).walk(Routine):
            if routine.name.lower().endswith(naming.FORWARD_SUFFIX):
                found[routine.name[:-len(naming.FORWARD_SUFFIX)].lower()] = routine.name
    return found
