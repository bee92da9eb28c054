"""One output file for several differentiated routines (``--routine a:y/x
--routine b:z/w``): the generated texts of each head merged, module by
module, so that a Makefile makes one call per source file.

Routines the heads share (a callee's motions, a tape's reserve routine)
appear once; declarations the heads share (tapes, adjoints of module
variables) once.  Two heads that need different code under one name (a
callee differentiated with other active arguments) cannot share a file:
that is an error naming the routine.
"""

import re

from adfort import units
from adfort.errors import AdfortError

_ACCESS = re.compile(r"^\s*(?:public|private)\b", re.IGNORECASE)
_NOT_DECLARATIONS = re.compile(r"^\s*(?:use|implicit|contains)\b", re.IGNORECASE)


class _Module:
    def __init__(self, head_line, end_line):
        self.head_line, self.end_line = head_line, end_line
        self.spec = []          # statement texts, in order
        self.declared = {}      # entity name: statement text
        self.routines = {}      # name: text


def merge(texts, heads):
    """The texts of generated files merged into one.

    :param texts: the generated Fortran of each head (headers left out).
    :param heads: the routine name of each head (for messages).
    :raises AdfortError: when two heads generate different routines or
        declarations under one name.
    """
    modules, externals, order = {}, {}, []
    for text, head in zip(texts, heads):
        found = units.scan(text, fixed_form=False)
        if found is None:  # adfort writes only what its scanner reads
            raise AdfortError(f"cannot merge the adjoint of '{head}' with the others: "
                              "differentiate it in a separate run")
        lines = text.splitlines(keepends=True)
        for unit in found.units:
            body = "".join(lines[unit.first:unit.last + 1])
            if unit.kind == "module":
                if unit.name not in modules:
                    modules[unit.name] = _Module(lines[unit.first], lines[unit.last])
                    order.append(("module", unit.name))
                _merge_spec(modules[unit.name], lines, unit, found, head)
            elif unit.module is not None:
                _add(modules[unit.module].routines, unit.name, body, head)
            else:
                if unit.name not in externals:
                    order.append(("external", unit.name))
                _add(externals, unit.name, body, head)
    out = []
    for kind, name in order:
        if kind == "external":
            out.append(externals[name])
            continue
        module = modules[name]
        out.append(module.head_line)
        # USE statements first, then IMPLICIT, as Fortran orders them.
        out.extend(sorted(module.spec, key=_rank))
        out.append("\n  contains\n")
        out.extend(module.routines.values())
        out.append(module.end_line)
    return "".join(out)


def _rank(statement):
    text = statement.lstrip().lower()
    return 0 if text.startswith("use") and re.match(r"use\b", text) else \
        1 if text.startswith("implicit") else 2


def _add(routines, name, body, head):
    if name in routines and routines[name] != body:
        raise AdfortError(
            f"'{head}' needs another '{name}' than the routines before it (a callee "
            "differentiated with other active arguments): differentiate it in a "
            "separate run")
    routines.setdefault(name, body)


def _merge_spec(module, lines, unit, found, head):
    """Add the specification statements of module `unit` not there yet."""
    inner = [u for u in found.units if u.module == unit.name]
    end = inner[0].first if inner else unit.last
    spec = "".join(lines[unit.first + 1:end])
    spec_lines = spec.splitlines(keepends=True)
    for first, last, statement in units.statements(spec, fixed_form=False):
        if statement == "contains":
            continue
        text = "".join(spec_lines[first:last + 1])
        if text in module.spec:
            continue
        if "::" in statement and not _ACCESS.match(statement) \
                and not _NOT_DECLARATIONS.match(statement):
            for name in _entities(statement.split("::", 1)[1]):
                if module.declared.get(name, text) != text:
                    raise AdfortError(
                        f"'{head}' needs '{name}' declared otherwise than the routines "
                        "before it: differentiate it in a separate run")
                module.declared[name] = text
        module.spec.append(text)


def _entities(entity_list):
    """Names declared by an entity list (``a(n), b = 0, c``)."""
    names = []
    for entity in units.split_top_level(entity_list):
        match = re.match(r"\s*(\w+)", entity)
        if match:
            names.append(match.group(1).lower())
    return names
