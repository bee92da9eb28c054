"""COMMON blocks as module variables.

A COMMON block is storage shared by position: routines may name its
members differently.  adfort gives every block a *canonical* layout (the
member names of the first declaration it canonicalises: the differentiated
routine's, else the one nearest to it in the call tree) and a generated module
holding that layout in the same COMMON block::

    module pars_common
      double precision :: a, b
      common /pars/ a, b
    end module pars_common

so that a member is a module variable like any other: the activity,
taping, saving and adjoint machinery for module variables applies, and
the adjoints live in the module's generated ``pars_common_ad``.  The
working copy of each routine has its members renamed to the canonical
names (only adfort's copies: the generated routines declare the block
with those names), and the generated file holds the layout modules.
"""

import re

from adfort.writer import Writer
from psyclone.psyir.frontend.fortran import FortranReader
from psyclone.psyir.nodes import Literal
from psyclone.psyir.symbols import (
    ArrayType, CommonBlockInterface, DataSymbol, ScalarType, UnsupportedFortranType)

from adfort import naming
from adfort.errors import AdfortError
from adfort.exprs import INTEGER_TYPE, constant_integer
from adfort.known_zero import structural_key

_STATEMENT = re.compile(r"^\s*common\b(?P<body>.*)$", re.IGNORECASE | re.DOTALL)


def common_statements(table):
    """The symbols holding the COMMON statements PSyclone kept verbatim."""
    return [s for s in table.datasymbols
            if isinstance(s.datatype, UnsupportedFortranType)
            and _STATEMENT.match(s.datatype.declaration)]


def parse_common(text):
    """[(block name, [member names])] of one COMMON statement (the blank
    common is named '').

    :raises ValueError: for text that is not a COMMON statement.
    """
    match = _STATEMENT.match(text)
    if not match:
        raise ValueError(text)
    body, blocks, block, members = match.group("body"), [], "", []
    position, depth, current = 0, 0, ""
    started = False

    def flush():
        nonlocal current
        name = current.strip()
        if name:
            members.append(re.match(r"\w+", name).group(0).lower())
        current = ""

    while position < len(body):
        char = body[position]
        if depth == 0 and char == "/":
            flush()
            end = body.index("/", position + 1)
            if started or members:
                blocks.append((block, members))
                members = []
            block = body[position + 1:end].strip().lower()
            started = True
            position = end + 1
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == "," and depth == 0:
            flush()
        else:
            current += char
        position += 1
    flush()
    blocks.append((block, members))
    return [(name, names) for name, names in blocks if names]


class CommonBlock:
    """One COMMON block: its canonical members and its layout module.

    :param name: the block name (lower case, '' for the blank common).
    :param members: the canonical member DataSymbols (copies), in order.
    """

    def __init__(self, name, members):
        self.name = name
        self.members = members
        self.module_name = naming.common_module(name or "blank")

    @property
    def names(self):
        """Lower-case canonical member names, in order."""
        return [m.name.lower() for m in self.members]

    def module_source(self, routine_table, origin=None):
        """Fortran source of the layout module.

        :param routine_table: the table of a routine declaring the block
            (for the constants its members' declarations use).
        :param origin: ``origin(name)`` gives the module a name the routine
            sees through a wildcard ``use`` is declared in, or None.
        """
        writer = Writer()
        uses, lines, declared = [], [], set()

        def declare(name, member):
            # A constant the member's declaration names, after the
            # constants its own declaration names (SPEEDY's
            # PARAMETER (NLEV=KX) with KX from an included header).
            if name in declared:
                return
            declared.add(name)
            constant = routine_table.lookup(name, otherwise=None)
            module = None
            if constant is not None and constant.is_import:
                module = constant.interface.container_symbol.name
            elif (constant is None or constant.is_unresolved) and origin is not None:
                module = origin(name)
            if module is not None:
                uses.append(f"use {module}, only: {name}")
            elif isinstance(constant, DataSymbol) and constant.is_constant:
                for ref in _declaration_references(constant):
                    declare(ref.symbol.name.lower(), member)
                lines.append(writer.gen_vardecl(constant).strip())
            else:
                raise AdfortError(
                    f"the declaration of COMMON /{self.name}/ member "
                    f"'{member.name}' uses '{name}', which adfort cannot copy into "
                    "a module: declare the member with constant bounds")

        for member in self.members:
            for ref in _declaration_references(member):
                declare(ref.symbol.name.lower(), member)
            lines.append(writer.gen_vardecl(_as_local(member)).strip())
        block = f"/{self.name}/" if self.name else "//"
        lines.append(f"common {block} " + ", ".join(m.name for m in self.members))
        body = "\n".join("  " + line for line in uses + ["implicit none"] + lines)
        return f"module {self.module_name}\n{body}\nend module {self.module_name}\n"


def _as_local(member):
    """A copy of `member` to declare in the layout module, its ``real*8``
    style kind written ``real(kind=8)`` (generated code compiles with
    ``-std=f2008``)."""
    copy = member.copy()
    copy.interface = CommonBlockInterface()
    dtype = copy.datatype
    element = getattr(dtype, "elemental_type", dtype)
    if isinstance(getattr(element, "precision", None), int):
        fixed = ScalarType(element.intrinsic, Literal(str(element.precision), INTEGER_TYPE))
        copy.datatype = ArrayType(fixed, dtype.shape) if isinstance(dtype, ArrayType) \
            else fixed
    return copy


def _declaration_references(symbol):
    from adfort.prune import _datatype_references
    return _datatype_references(symbol)


class CommonRegistry:
    """The COMMON blocks met in a differentiation, by name.

    :param trees: a list the parsed layout modules are appended to (the
        program's files, so that they are found like any module).
    """

    def __init__(self, trees):
        self.blocks = {}
        self.trees = trees

    def canonicalise(self, routine, location=None):
        """Rename the COMMON members of `routine` (a working copy) to the
        canonical names of their blocks, registering new blocks.

        :returns: the names of the blocks the routine declares.
        :raises AdfortError: when a block's layout differs from the one seen
            first, or a canonical name is taken by another variable.
        """
        table = routine.symbol_table
        used = []
        renames = {}
        for statement in common_statements(table):
            text = statement.datatype.declaration
            for block, members in parse_common(text):
                symbols = [table.lookup(m) for m in members]
                known = self.blocks.get(block)
                if known is None:
                    known = self._register(block, symbols, table, location)
                if len(known.members) != len(symbols) or any(
                        _layout(a) != _layout(b) for a, b in zip(known.members, symbols)):
                    label = f"/{block}/" if block else "blank COMMON"
                    differ = next((f" (member '{b.name}' is declared otherwise there)"
                                   for a, b in zip(known.members, symbols)
                                   if _layout(a) != _layout(b)), "")
                    raise AdfortError(
                        f"COMMON {label} is declared here with another layout than in "
                        f"'{known.first}'{differ}: adfort needs the same members (types, "
                        "kinds and bounds) in every declaration of a block; declare it "
                        "alike everywhere (one INCLUDE file)", location)
                for symbol, canonical in zip(symbols, known.members):
                    if symbol.name.lower() != canonical.name.lower():
                        renames[symbol.name.lower()] = canonical.name
                used.append(block)
        for old, new in renames.items():
            clash = table.lookup(new, otherwise=None, scope_limit=routine)
            if clash is not None and clash.name.lower() not in renames:
                raise AdfortError(
                    f"COMMON member '{old}' is '{new}' in other routines, and this routine "
                    f"has another variable '{new}': rename it", location)
        _rename(routine, renames)
        return used

    def _register(self, block, symbols, table, location=None):
        members = [s.copy() for s in symbols]
        known = CommonBlock(block, members)
        self._check_free(known, location)
        known.first = table.node.name if table.node is not None else "?"
        self.blocks[block] = known
        tree = FortranReader().psyir_from_source(
            known.module_source(table, lambda name: self._origin(name, table)))
        tree.adfort_synthetic = True
        self.trees.append(tree)
        return known

    def _check_free(self, known, location):
        """The layout module's name, which the calling convention fixes
        (``<block>_common``, and ``<block>_common_ad`` for the adjoints of
        its members), must not be a module of the user's: an error naming
        both.  (A layout module read back, in the generated file an HVP
        build reads, declares the block itself.)"""
        from psyclone.psyir.nodes import Container, FileContainer
        from adfort.errors import where_module
        label = f"/{known.name}/" if known.name else "blank COMMON"
        adjoints = naming.module(known.module_name)
        if len(adjoints) > naming.MAX_NAME_LENGTH:
            raise AdfortError(
                f"the name of COMMON {label} ({len(known.name)} characters) is too long for "
                f"the modules adfort generates from it: '{adjoints}' would have "
                f"{len(adjoints)} characters, and Fortran allows {naming.MAX_NAME_LENGTH}; "
                "rename the block to at most "
                f"{naming.MAX_NAME_LENGTH - (len(adjoints) - len(known.name))} characters",
                location)
        for tree in self.trees:
            if getattr(tree, "adfort_synthetic", False):
                continue
            for node in tree.children:
                if not isinstance(node, Container) or isinstance(node, FileContainer) or \
                        node.name.lower() != known.module_name.lower():
                    continue
                if any(found == known.name
                       for statement in common_statements(node.symbol_table)
                       for found, _ in parse_common(statement.datatype.declaration)):
                    continue
                place = where_module(node)
                raise AdfortError(
                    f"module '{node.name}' has the name adfort gives the module "
                    f"of COMMON {label} (the calling convention: '{known.module_name}' holds "
                    f"the block's members, '{naming.module(known.module_name)}' their "
                    f"adjoints): rename module '{node.name}'", place or location)

    def _origin(self, name, table):
        """The module declaring `name`, which `table`'s routine sees through
        a wildcard ``use`` (among the files read), or None."""
        from psyclone.psyir.nodes import Container
        scope = table
        while scope is not None:
            for container in scope.containersymbols:
                if not container.wildcard_import:
                    continue
                for tree in self.trees:
                    for module in tree.walk(Container):
                        if module.name.lower() == container.name.lower() and \
                                module.symbol_table.lookup(name, otherwise=None,
                                                           scope_limit=module) is not None:
                            return module.name
            scope = scope.parent_symbol_table()
        return None

    def member(self, name, routine):
        """(layout module name, canonical DataSymbol) of COMMON member `name`
        as declared (with canonical names) in `routine`, or None."""
        symbol = routine.symbol_table.lookup(name, otherwise=None)
        if symbol is not None and not isinstance(symbol.interface, CommonBlockInterface):
            return None
        # Declared in the routine, or named by a callee that writes it.
        for block in self.blocks.values():
            if name.lower() in block.names:
                module = self.module(block)
                return block.module_name, module.symbol_table.lookup(name)
        return None

    def module(self, block):
        """The parsed layout module of `block`."""
        for tree in self.trees:
            for container in tree.children:
                if getattr(container, "name", "").lower() == block.module_name.lower():
                    return container
        return None

    def layout_modules(self):
        """The layout modules of the blocks registered, in order."""
        return [self.module(block) for block in self.blocks.values()]


def _layout(symbol):
    """What two declarations of a member must share: type, kind and the
    bounds of each dimension (their values, else their text).  A member
    declared ``ts(4, 6)`` here and ``ts(6, 4)`` there names other storage
    by the same subscripts: its adjoint, one module array, could not
    follow both."""
    dtype = symbol.datatype
    bounds = []
    for dim in getattr(dtype, "shape", []) or []:
        for bound in (getattr(dim, "lower", None), getattr(dim, "upper", None)):
            value = constant_integer(bound) if bound is not None else None
            bounds.append(value if value is not None else
                          structural_key(bound) if hasattr(bound, "walk") else str(bound))
    return str(getattr(dtype, "intrinsic", dtype)), str(getattr(dtype, "precision", "")), \
        len(getattr(dtype, "shape", []) or []), tuple(bounds)


def _rename(routine, renames):
    """Rename symbols of `routine` (a working copy) and the COMMON
    statements naming them."""
    if not renames:
        return
    table = routine.symbol_table
    for statement in common_statements(table):
        text = statement.datatype.declaration
        head, _, body = text.partition(" ")
        pieces = re.split(r"(/[^/]*/)", body)
        for index, piece in enumerate(pieces):
            if piece.startswith("/"):
                continue  # a block name
            pieces[index] = re.sub(
                r"\b(\w+)\b", lambda m: renames.get(m.group(1).lower(), m.group(1)), piece)
        statement.datatype = UnsupportedFortranType(head + " " + "".join(pieces))
    # PSyclone will not rename COMMON members (their names are in the
    # statement, which we rewrite above): rename in the table directly,
    # keeping the declaration order.
    symbols = table._symbols
    renamed = {}
    for key, symbol in symbols.items():
        new = renames.get(key)
        if new is not None:
            symbol._name = new
            key = table._normalize(new)
        renamed[key] = symbol
    symbols.clear()
    symbols.update(renamed)
