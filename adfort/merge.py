"""One output file for several differentiated routines (``--routine a:y/x
--routine b:z/w``): the generated texts of each head merged, module by
module, so that a Makefile makes one call per source file.

Routines the heads share (a callee's motions, a tape's reserve routine)
appear once; declarations the heads share (tapes, adjoints of module
variables) once.  Two heads that need different code under one name (a
callee differentiated with other active arguments, or one head calling
another, whose motions as a callee differ from its own as a head) each
get their own: the routine keeps its name in the text of the head whose
motion it is (``step_rev`` in step's), else in the first head's, and the
other heads call their variant, named after them
(:func:`adfort.naming.head_variant`).  Declarations two heads need
otherwise under one name are an error.
"""

import re

from adfort import naming, units
from adfort.layout import wrap_line
from adfort.errors import AdfortError

_ACCESS = re.compile(r"^\s*(?:public|private)\b", re.IGNORECASE)
_ACCESS_LIST = re.compile(r"^\s*(public|private)\s*::(.*)$", re.IGNORECASE | re.DOTALL)
_NOT_DECLARATIONS = re.compile(r"^\s*(?:use|implicit|contains)\b", re.IGNORECASE)


class _Module:
    def __init__(self, head_line, end_line):
        self.head_line, self.end_line = head_line, end_line
        self.spec = []          # statement texts, in order
        self.declared = {}      # entity name: statement text
        self.routines = {}      # name: text
        # The names of the PUBLIC :: / PRIVATE :: lists of all heads: one
        # statement each, a name once (a compiler rejects a second access
        # statement for a name): lower-case name: (access, spelling).
        self.access = {}


class _AccessList:
    """Where, among a merged module's specification statements, the
    ``public ::`` or ``private ::`` list of all heads goes."""

    def __init__(self, module, access):
        self.module, self.access = module, access

    def lstrip(self):
        return self.access

    def text(self):
        names = [spelling for access, spelling in self.module.access.values()
                 if access == self.access]
        if not names:
            return ""
        return "\n".join(wrap_line(f"  {self.access} :: {', '.join(names)}")) + "\n"


def merge(texts, heads):
    """The texts of generated files merged into one.

    :param texts: the generated Fortran of each head (headers left out).
    :param heads: the routine name of each head (for messages).
    :raises AdfortError: when two heads generate different routines or
        declarations under one name.
    """
    texts = _separate_variants(list(texts), heads)
    modules, externals, order = {}, {}, []
    for text, head in zip(texts, heads):
        found = _scan(text, head)
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
        out.extend(s.text() if isinstance(s, _AccessList) else s
                   for s in sorted(module.spec, key=_rank))
        out.append("\n  contains\n")
        out.extend(module.routines.values())
        out.append(module.end_line)
    return "".join(out)


def _scan(text, head):
    found = units.scan(text, fixed_form=False)
    if found is None:  # adfort writes only what its scanner reads
        raise AdfortError(f"cannot merge the adjoint of '{head}' with the others: "
                          "differentiate it in a separate run")
    return found


def _routines(text, head):
    """{(module or None, routine name): text} of the routines of `text`."""
    lines = text.splitlines(keepends=True)
    return {(unit.module, unit.name): "".join(lines[unit.first:unit.last + 1])
            for unit in _scan(text, head).units if unit.kind != "module"}


def _owner(name, holders, heads):
    """The index (among `holders`) of the text that keeps routine `name`:
    the head whose motion it is (the longest head name it starts with),
    else the first."""
    owned = [i for i in holders if name.startswith(heads[i].lower() + "_")]
    return max(owned, key=lambda i: len(heads[i])) if owned else holders[0]


def _separate_variants(texts, heads):
    """`texts` with each routine that heads need differently under one
    name renamed in the texts of all but one head (its calls too).  A
    renamed callee changes its callers' texts: repeated until every name
    means one routine."""
    variants = [set() for _ in texts]
    for _ in range(64 * len(texts)):    # (each round renames one routine at least)
        bodies = [_routines(text, head) for text, head in zip(texts, heads)]
        keys = list(dict.fromkeys(key for found in bodies for key in found))
        renames = [{} for _ in texts]
        taken = {word.lower() for text in texts for word in re.findall(r"\w+", text)}
        for key in keys:
            holders = [i for i, found in enumerate(bodies) if key in found]
            if len({bodies[i][key] for i in holders}) < 2:
                continue
            # One name per distinct routine: the kept one its own, each
            # other the variant of the first head needing it.
            named = {bodies[_owner(key[1], holders, heads)][key]: key[1]}
            for i in holders:
                body = bodies[i][key]
                if body not in named:
                    named[body] = naming.unique_name(
                        naming.head_variant(key[1], heads[i].lower()), taken)
                    taken.add(named[body].lower())
                if named[body] != key[1]:
                    renames[i][key[1]] = named[body]
                    variants[i].add(named[body].lower())
        if not any(renames):
            return [_drop_unused(text, head, variants[i])
                    for i, (text, head) in enumerate(zip(texts, heads))]
        for i, mapping in enumerate(renames):
            for old in sorted(mapping):
                texts[i] = re.sub(rf"\b{re.escape(old)}\b", mapping[old], texts[i],
                                  flags=re.IGNORECASE)
    raise AdfortError("cannot merge the adjoints of " + ", ".join(repr(h) for h in heads)
                      + ": differentiate them in separate runs")


def _drop_unused(text, head, variants):
    """`text` without the renamed routines nothing in it calls (a head's
    own motions generated alongside its motions as a callee)."""
    lines = text.splitlines(keepends=True)
    for unit in reversed(_scan(text, head).units):
        if unit.name.lower() not in variants:
            continue
        word = re.compile(rf"\b{re.escape(unit.name)}\b", re.IGNORECASE)
        inside = "".join(lines[unit.first:unit.last + 1])
        if len(word.findall(text)) == len(word.findall(inside)):
            del lines[unit.first:unit.last + 1]
            text = "".join(lines)
    return "".join(lines)


def _rank(statement):
    text = statement.lstrip().lower()
    return 0 if text.startswith("use") and re.match(r"use\b", text) else \
        1 if text.startswith("implicit") else 2


def _add(routines, name, body, head):
    assert routines.get(name, body) == body, (head, name)   # (_separate_variants)
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
        access = _ACCESS_LIST.match(statement)
        if access:
            _add_access(module, access.group(1), text)
            continue
        if text in module.spec:
            continue
        if "::" in statement and not _ACCESS.match(statement) \
                and not _NOT_DECLARATIONS.match(statement):
            for name in _entities(statement.split("::", 1)[1]):
                if module.declared.get(name, text) != text:
                    raise AdfortError(
                        f"the adjoint of '{head}' needs '{name}' declared otherwise, in the "
                        f"generated module '{unit.name}', than the heads before it (adfort "
                        "merges their generated modules into one): differentiate "
                        f"'{head}' in a separate run; the outputs compile and link together")
                module.declared[name] = text
        module.spec.append(text)


def _add_access(module, access, text):
    """Add the names of the access statement `text` (``private :: a, s``,
    maybe continued) to the one list of `module`; a name one head keeps
    private and another makes public is public (what the other head's
    users need)."""
    if not any(isinstance(s, _AccessList) and s.access == access for s in module.spec):
        module.spec.append(_AccessList(module, access))
    joined = re.sub(r"&\s*\n\s*&?", " ", text).split("::", 1)[1]
    for name in units.split_top_level(joined):
        spelling = name.strip()
        if not re.fullmatch(r"\w+", spelling):     # (an operator, an assignment…)
            spelling = re.sub(r"\s+", " ", spelling)
        key = spelling.lower()
        if not spelling:
            continue
        if key not in module.access or access == "public":
            module.access[key] = (access, module.access.get(key, (None, spelling))[1])


def _entities(entity_list):
    """Names declared by an entity list (``a(n), b = 0, c``)."""
    names = []
    for entity in units.split_top_level(entity_list):
        match = re.match(r"\s*(\w+)", entity)
        if match:
            names.append(match.group(1).lower())
    return names
