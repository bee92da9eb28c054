"""Allocatable components of derived types: which a local variable of the
type holds, so that its explicit deallocations at the end of a routine hand
it to the returning motion (a driver's ``type(noahmp_type) :: noahmp`` with
``noahmp%water%param%…`` allocated and filled)."""

from psyclone.psyir.symbols import ArrayType

from adfort.derived import _leaves, structure_of


def allocatable_components(datatype, path=(), _seen=()):
    """Paths (component names from the top) of the allocatable components
    of a scalar derived `datatype`, at any depth through its scalar,
    non-allocatable derived components; [] for other types."""
    if isinstance(datatype, ArrayType):
        return []
    structure = structure_of(datatype)
    if structure is None or id(structure) in _seen:
        return []
    found = []
    for component in structure.components.values():
        dtype = component.datatype
        if getattr(dtype, "is_allocatable", False):
            found.append(path + (component.name,))
        elif structure_of(dtype) is not None:
            found.extend(allocatable_components(dtype, path + (component.name,),
                                                _seen + (id(structure),)))
    return found


def held_in_allocatable_components(datatype):
    """Whether every real and integer value of a scalar derived `datatype`
    lies in its allocatable components (so that a local of the type is
    handed to the returning motion by their deallocations)."""
    paths = allocatable_components(datatype)
    if not paths:
        return False
    return all(any(path[:len(p)] == p for p in paths)
               for path, _ in _leaves(datatype, ("real", "integer")))
