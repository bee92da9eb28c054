"""The module variables and COMMON members ``adfort check`` resets.

Every public variable of intrinsic type of the sources' modules (and of
the COMMON blocks' layout modules of the generated file) is saved at the
start of the check program and put back before every call: whatever the
routine changes there, each call starts from the same state.  Those named
with ``--dep``/``--indep`` are drawn at random like arguments.
"""

import re

from psyclone.psyir.nodes import Container, FileContainer, Routine
from psyclone.psyir.symbols import ArrayType, ImportInterface, ScalarType, Symbol

from adfort.check.problem import Var, scalar_type, shape
from adfort.commons import common_statements, parse_common
from adfort.errors import AdfortError


def module_variables(trees, path, names):
    """Every public variable of intrinsic type of the modules in `trees`
    (the driver saves and restores them around every call)."""
    found = []
    for tree, tree_path in trees:
        # (PROTECTED ones cannot be set outside their module: nothing the
        # routines differentiated may change, adfort's fence says.)
        protected = getattr(tree, "adfort_protected", set())
        for container in tree.walk(Container):
            if isinstance(container, FileContainer):
                continue
            ctable = container.symbol_table
            for symbol in ctable.datasymbols:
                if symbol.is_constant or symbol.visibility != Symbol.Visibility.PUBLIC \
                        or isinstance(symbol.interface, ImportInterface) \
                        or symbol.name.lower() in protected:
                    continue
                var = _variable(symbol, container, ctable, names, tree_path, len(found) + 1)
                if var is not None:
                    found.append(var)
    return found


def _variable(symbol, container, table, names, path, k):
    """The :class:`Var` of a module variable, or None for one the check
    program cannot copy (derived type, pointer, assumed shape, a kind it
    cannot name)."""
    dtype = symbol.datatype
    if isinstance(dtype, ArrayType):
        elem = ScalarType(dtype.intrinsic, dtype.precision)
    elif isinstance(dtype, ScalarType):
        elem = dtype
    else:
        return None
    try:
        typed = scalar_type(elem, names, table, path)
    except AdfortError:
        return None
    if typed is None:
        return None
    module = container.name.lower()
    var = Var(f"{module}::{symbol.name.lower()}", f"adf_g{k}", symbol.name.lower(),
              typed[0], typed[1], module=module,
              initialised=symbol.initial_value is not None)
    if isinstance(dtype, ArrayType):
        try:
            dims, allocatable, assumed = shape(dtype, names, table, path, {})
        except AdfortError:
            return None
        if assumed:
            return None
        var.dims = dims
        var.allocatable = allocatable
    return var


def set_values(var, sizes, used):
    """Take the ``--size`` extents of an allocatable module array (noted in
    `used`).

    :raises AdfortError: for a ``--size`` on any other module variable."""
    if var.key in sizes:
        if not (var.allocatable and var.is_array):
            raise AdfortError(f"--size {var.key}: only allocatable module arrays take a "
                              "size (to be allocated before the calls)")
        var.allocate = [p.strip() for p in sizes[var.key].split(",")]
        if len(var.allocate) != var.rank or not all(
                re.fullmatch(r"\d+", e) for e in var.allocate):
            raise AdfortError(f"--size {var.key}={sizes[var.key]}: give {var.rank} "
                              "whole-number extent(s)")
        var.dims = [("1", e) for e in var.allocate]
        used.add(var.key)


def common_aliases(trees):
    """{``block_common::name``: ``block_common::member``}: the names the
    routines give COMMON members, to the layout modules' (by position)."""
    layout, named = {}, {}
    for tree, _ in trees:
        for scope in tree.walk(Container) + tree.walk(Routine):
            for symbol in common_statements(scope.symbol_table):
                try:
                    blocks = parse_common(symbol.datatype.declaration)
                except ValueError:
                    continue
                for block, members in blocks:
                    target = layout if isinstance(scope, Container) and \
                        scope.name.lower() == f"{block}_common" else named
                    for position, member in enumerate(members):
                        target.setdefault((block, member), position)
    by_position = {(block, position): member for (block, member), position in layout.items()}
    return {f"{block}_common::{member}": f"{block}_common::{by_position[block, position]}"
            for (block, member), position in named.items()
            if (block, position) in by_position}
