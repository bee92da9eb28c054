"""Components of derived types that never carry a derivative.

Activity (:mod:`adfort.activity`) is decided per variable: a model state
``st`` whose temperatures vary is active as a whole, and so its grid
spacing ``st%dz`` and time step ``st%dt`` too.  Every use of them then adds
a term to their adjoints (``st_adj%dz = st_adj%dz - n2_adj*(…)/st%dz**2``),
and the values those terms read are taped: in an ocean column's mixing
scheme, both densities of each level, for a spacing set once from a literal.

A component is *passive* when no statement of the differentiated call tree
gives it a value that may vary.  It is named by the derived type holding it
and its name (``('column_state', 'dz')``), for every variable of the type:
a variable copied whole from another of its type takes that one's
components, so the rule holds for all of them together.  The component
stays passive as long as every assignment to it (``x%dz = …``, or any
``…%dz`` of that type) reads only literals, named constants and passive
components, and

- it is not given to a routine that may set it (an actual argument of a
  call, but to an ``intent(in)`` dummy of a routine of the call tree),
  nor read into by an I/O statement, nor set by an intrinsic subroutine;
- no value of its type comes from an expression other than a variable
  (a structure constructor, a function), nor through a call to a routine
  without source (a variable of its type given to one);
- no dependent or independent holds its type, and no pointer assignment
  in the call tree involves a structure (then nothing is passive).

Values set outside the call tree (an initialisation before the call) do
not vary with the independents.  The adjoints of passive components stay
declared in the adjoint types (their layout is the primal's), receive
nothing and are never read for a derivative: an assignment to one has no
adjoint statement, and a use of one in an expression none either.
"""

import re

from psyclone.psyir.nodes import Assignment, Call, CodeBlock, IntrinsicCall, Schedule
from psyclone.psyir.symbols import ArgumentInterface, ArrayType, DataTypeSymbol

from adfort.activity import differentiable_references
from adfort.derived import (
    STRUCTURE_REFERENCES, find_component, is_derived_value, is_variable, structure_of,
    value_type)

_MEMBER = re.compile(r"%\s*([a-z_]\w*)", re.IGNORECASE)


def leaf_key(reference):
    """(type name, component name) of the component `reference` ends in
    (``st%grid%dz(k)`` → ``('grid_type', 'dz')``), or None."""
    if type(reference) not in STRUCTURE_REFERENCES:
        return None
    dtype = reference.symbol.datatype
    part = getattr(reference, "member", None)
    while part is not None:
        owner = dtype.elemental_type if isinstance(dtype, ArrayType) else dtype
        if not isinstance(owner, DataTypeSymbol):
            return None
        component = find_component(dtype, part.name)
        if component is None:
            return None
        following = getattr(part, "member", None)
        if following is None:
            return owner.name.lower(), part.name.lower()
        dtype, part = component.datatype, following
    return None


def _reachable(datatype, found=None):
    """Names of the derived types a value of `datatype` holds, itself
    included, at any depth."""
    found = set() if found is None else found
    structure = structure_of(datatype)
    if structure is None:
        return found
    element = datatype.elemental_type if isinstance(datatype, ArrayType) else datatype
    name = element.name.lower()
    if name in found:
        return found
    found.add(name)
    for component in structure.components.values():
        _reachable(component.datatype, found)
    return found


class PassiveComponents:
    """The passive components of one differentiation's call tree.

    :param units: the :class:`adfort.interprocedural.Unit` objects of the
        call tree (working copies, types resolved).
    :param seeds: the symbols of the dependents and independents.
    """

    def __init__(self, units, seeds):
        self._varied_types = set()     # types none of whose components is passive
        self._varied = set()           # (type, component) keys that may vary
        self._varied_names = set()     # component names I/O may set, any type
        self._off = False
        assignments = []
        for symbol in seeds:
            self._varied_types |= _reachable(getattr(symbol, "datatype", None))
        for unit in units:
            self._scan(unit, assignments)
        changed = True
        while changed and not self._off:
            changed = False
            for key, rhs in assignments:
                if self._may_vary(key) or all(self._passive_read(r)
                                              for r in differentiable_references(rhs)):
                    continue
                self._varied.add(key)
                changed = True

    def is_passive(self, reference):
        """Whether `reference` names (part of) a passive component."""
        if self._off:
            return False
        key = leaf_key(reference)
        return key is not None and not self._may_vary(key)

    # -- the scan ----------------------------------------------------------
    def _may_vary(self, key):
        return key in self._varied or key[0] in self._varied_types \
            or key[1] in self._varied_names

    def _passive_read(self, reference):
        if getattr(reference.symbol, "is_constant", False):
            return True
        return self.is_passive(reference)

    def _whole(self, reference):
        """A derived value is set or handed out whole: all its types vary."""
        self._varied_types |= _reachable(value_type(reference))

    def _scan(self, unit, assignments):
        work = unit.work
        for block in work.walk(CodeBlock):
            for node in block.parse_tree_nodes:
                self._varied_names |= {m.lower() for m in _MEMBER.findall(str(node))}
        for assign in work.walk(Assignment):
            lhs = assign.lhs
            if assign.is_pointer:
                if any(type(r) in STRUCTURE_REFERENCES or is_derived_value(r)
                       for r in (lhs, assign.rhs) if is_variable(r)):
                    self._off = True
                continue
            if is_variable(lhs) and is_derived_value(lhs):
                if not is_variable(assign.rhs):
                    self._whole(lhs)    # a constructor, a function's value
                continue
            key = leaf_key(lhs)
            if key is not None:
                assignments.append((key, assign.rhs))
        for call in work.walk(Call):
            callee = unit.calls.get(id(call), False)
            if isinstance(call, IntrinsicCall):
                if not isinstance(call.parent, Schedule):
                    continue    # a function (MAX(st%dz, 1.0)): it only reads
                callee = None   # CALL RANDOM_NUMBER(st%r), ALLOCATE…: may set
            elif callee is None and id(call) in unit.passive:
                continue        # declared passive: nothing it sets varies
            formals = list(callee.formals) if callee and not getattr(
                callee, "opaque", False) else None
            for position, actual in enumerate(call.arguments):
                if not is_variable(actual):
                    continue
                if is_derived_value(actual):
                    if formals is None:
                        self._whole(actual)
                    continue
                key = leaf_key(actual)
                if key is None:
                    continue
                formal = formals[position] if formals and position < len(formals) else None
                if formal is None or getattr(formal.interface, "access", None) \
                        != ArgumentInterface.Access.READ:
                    self._varied.add(key)
