"""Source rewrites of F77 specification idioms PSyclone cannot represent.

PSyclone turns a whole routine into an opaque block when it meets an
``INTRINSIC`` statement, a ``DIMENSION`` statement or a ``RECURSIVE``
prefix, and reads a typed intrinsic (``DOUBLE PRECISION ABS``, legal F77
that leaves ``ABS`` the intrinsic) as a variable.  Each has a plain
equivalent, written here before parsing:

- ``INTRINSIC ABS, SQRT`` is dropped: intrinsics need no declaration;
- ``DIMENSION X(N)`` moves its bounds to the type declaration of ``X``
  (``DOUBLE PRECISION X`` becomes ``DOUBLE PRECISION X(N)``), or becomes a
  declaration of the type ``X`` has by the unit's IMPLICIT rules;
- ``RECURSIVE`` is dropped (adfort's call graph still rejects a routine
  that really calls itself);
- a typed intrinsic name used as a function is dropped from its declaration;
- the type-bound procedures of a derived type (its ``CONTAINS`` part:
  ``procedure :: scale => col_scale``) are dropped: PSyclone cannot
  represent them, and made the whole type unknown; a call through one is
  still an error naming it;
- ``use m, local => remote`` (renames without ONLY, which PSyclone cannot
  read: it kept the whole module as text, so nothing of it was seen)
  becomes ``use m; use m, only: local => remote``: the remote name stays
  visible too, which only matters to a unit declaring it again;
- the ``CONTIGUOUS`` attribute is dropped (``real(rk), contiguous,
  intent(in) :: h(:)``, a ``CONTIGUOUS :: h`` statement): it only lets the
  compiler assume what the actual arguments are; adfort's routines take
  them as plain assumed-shape arrays;
- the ``PROTECTED`` attribute of module variables is dropped likewise (a
  ``PROTECTED :: a`` statement too): outside its module such a variable is
  only read, which adfort's generated modules do as well; the names are
  collected so that a differentiated routine writing one (which its
  adjoint module could not) is refused;
- the ``VALUE`` attribute of dummy arguments is dropped (a ``VALUE :: x``
  statement too): a dummy the routine never changes reads the same by value
  and by reference; the names are collected (with their routine's) so that
  a differentiated routine changing one is refused.

Statements keep their lines, so messages still name the user's lines.
"""

import re

from psyclone.psyir.nodes import IntrinsicCall

from adfort.controlflow import is_assignment
from adfort.errors import AdfortError
from adfort.statements import split_statements, split_top_level

_INTRINSICS = {i.name.lower() for i in IntrinsicCall.Intrinsic} | {
    "dabs", "dsqrt", "dexp", "dlog", "dlog10", "dsin", "dcos", "dtan", "dasin", "dacos",
    "datan", "datan2", "dsinh", "dcosh", "dtanh", "dmax1", "dmin1", "amax1", "amin1",
    "max0", "min0", "amax0", "amin0", "max1", "min1", "dsign", "isign", "idim", "ddim",
    "dmod", "amod", "iabs", "float", "sngl", "dfloat", "idint", "ifix", "alog", "alog10",
    "dint", "dnint", "idnint", "cabs", "csqrt", "cexp", "clog", "csin", "ccos", "dprod"}

_TYPE = (r"(?:double\s*precision|double\s*complex|real|integer|logical|complex|character)"
         r"(?:\s*\*\s*(?:\d+|\(\s*\*\s*\))|\s*\([^()]*\))?")
_TYPE_STATEMENT = re.compile(rf"^\s*(?P<type>{_TYPE})\s*(?P<colons>::)?\s*(?P<entities>[a-z_].*)$",
                             re.IGNORECASE)
_TYPED_HEADER = re.compile(
    rf"^\s*(?P<prefix>(?:(?:recursive|pure|elemental|{_TYPE})\s*)*)"
    r"(?P<kind>subroutine|function|program|block\s*data|module(?!\s+procedure))\b\s*(?P<rest>.*)$",
    re.IGNORECASE)
_END = re.compile(r"^\s*end\s*(?:subroutine|function|program|module|block\s*data)?\b\s*\w*\s*$",
                  re.IGNORECASE)
_DIMENSION = re.compile(r"^\s*dimension\s*(?:::)?\s*(?P<entities>.*)$", re.IGNORECASE)
_INTRINSIC = re.compile(r"^\s*intrinsic\s*(?:::)?\s*[a-z_][\w\s,]*$", re.IGNORECASE)
# (Fixed-form text is spaced as it is loaded, adfort.fixed_blanks; a blank
# after IMPLICIT is not needed here either: IMPLICITREAL*8(A-H,O-Z).)
_IMPLICIT = re.compile(r"^\s*implicit(?:\s+|(?=(?:none|double|real|integer|logical|complex|"
                       r"character|type|byte)(?![\w\s]*(?:\([^)]*\))?\s*=(?!=))))(?P<spec>.*)$",
                       re.IGNORECASE)
_NAME = re.compile(r"^\s*([a-z_]\w*)\s*$", re.IGNORECASE)


class _Statement:
    """One logical statement: its physical lines and its code text."""

    def __init__(self, first, last, label, code):
        self.first, self.last, self.label, self.code = first, last, label, code
        self.new = None  # rewritten code, or "" to drop the statement
        self.shared = False  # on a line with another statement


def _statements(source, fixed):
    """The logical statements of `source` as rewritable units.  Statements
    that share a physical line (``a = 1; b = 2``) are never rewritten: a
    rewrite replaces whole lines."""
    found = [_Statement(s.line - 1, s.last - 1, s.label, s.text)
             for s in split_statements(source, fixed)]
    for before, after in zip(found, found[1:]):
        if after.first <= before.last:
            before.shared = after.shared = True
    return found


def _split_entities(text):
    """Top-level comma-separated items of `text`."""
    return [item.strip() for item in split_top_level(text) if item.strip()]


def _entity_name(entity):
    match = re.match(r"^([a-z_]\w*)", entity, re.IGNORECASE)
    return match.group(1).lower() if match else None


class _Implicit:
    """The implicit typing rules of a program unit."""

    def __init__(self):
        self.types = {chr(c): ("integer" if "i" <= chr(c) <= "n" else "real")
                      for c in range(ord("a"), ord("z") + 1)}

    def apply(self, spec):
        """Read the text after IMPLICIT; False if it cannot be understood."""
        if spec.strip().lower() == "none":
            self.types = {}
            return True
        for match in re.finditer(rf"({_TYPE})\s*\(([^()]*)\)", spec, re.IGNORECASE):
            for item in match.group(2).split(","):
                bounds = [b.strip().lower() for b in item.split("-")]
                if not all(len(b) == 1 and b.isalpha() for b in bounds):
                    return False
                for code in range(ord(bounds[0]), ord(bounds[-1]) + 1):
                    self.types[chr(code)] = match.group(1)
        return True

    def type_of(self, name):
        return self.types.get(name[0].lower())


def rewrite_specifications(source, fixed_form, path=None, protected=None, by_value=None):
    """Rewrite the idioms listed in the module docstring in `source`.

    :param protected: a set to which the (lower-case) names of the
        PROTECTED variables are added.
    :param by_value: a set to which (routine, dummy) of the VALUE dummies
        are added (lower-case names).

    :raises AdfortError: for a DO loop with a REAL variable (at
        ``path:line`` of `source`).
    """
    lines = source.splitlines(keepends=True)
    statements = _statements(source, fixed_form)
    # Implicit types are only sure in a file without modules and internal
    # procedures (host association, USE).
    nested = any(_NESTING.match(stmt.code) for stmt in statements)
    _drop_type_bindings(statements)
    _monomorphic_dummies(statements, source)
    unit = []
    routine = None
    for stmt in statements:
        header = _TYPED_HEADER.match(stmt.code)
        if header:
            routine = (re.match(r"\s*(\w*)", header.group("rest")).group(1) or "").lower()
        if not stmt.shared:
            _drop_attribute(stmt, "contiguous")
            names = _drop_attribute(stmt, "protected")
            if protected is not None:
                protected.update(names)
            names = _drop_attribute(stmt, "value")
            if by_value is not None:
                by_value.update((routine, name) for name in names)
            _split_renaming_use(stmt)
        if header:
            if unit:
                _rewrite_unit(unit, fixed_form, path, nested)
            unit = [stmt]
            if not stmt.shared:
                _drop_recursive(stmt, header)
            continue
        unit.append(stmt)
        if _END.match(stmt.code):
            _rewrite_unit(unit, fixed_form, path, nested)
            unit = []
    if unit:
        _rewrite_unit(unit, fixed_form, path, nested)
    for stmt in statements:
        if stmt.new is not None:
            _render(lines, stmt, fixed_form)
    return "".join(lines)


_TYPE_DEFINITION = re.compile(r"^\s*type\s*(?:,[^:]*::|::|\s)\s*[a-z_]\w*\s*$", re.IGNORECASE)
_END_TYPE = re.compile(r"^\s*end\s*type\b", re.IGNORECASE)
_CONTAINS = re.compile(r"^\s*contains\s*$", re.IGNORECASE)


def _drop_type_bindings(statements):
    """Drop the CONTAINS part of derived-type definitions."""
    inside = dropping = False
    for stmt in statements:
        if _END_TYPE.match(stmt.code):
            inside = dropping = False
        elif _TYPE_DEFINITION.match(stmt.code) and not stmt.code.strip().lower().startswith(
                ("type(", "type (")):
            inside = True
        elif inside and _CONTAINS.match(stmt.code):
            dropping = True
        if dropping and not stmt.shared:
            stmt.new = ""


_CLASS_SPEC = re.compile(r"^(\s*)class\s*\(\s*([a-z_]\w*)\s*\)", re.IGNORECASE)
_EXTENDS = re.compile(r"\bextends\s*\(\s*([a-z_]\w*)\s*\)", re.IGNORECASE)


def _monomorphic_dummies(statements, source):
    """``class(t)`` declarations outside type definitions as ``type(t)``
    when no type of the source extends ``t``: such a variable can only hold
    a ``t`` (the passed-object dummy of a type-bound procedure must be
    declared CLASS, so calling the procedure by its name needs this)."""
    extended = {m.group(1).lower() for m in _EXTENDS.finditer(source)}
    inside = False
    for stmt in statements:
        if _END_TYPE.match(stmt.code):
            inside = False
            continue
        if _TYPE_DEFINITION.match(stmt.code) and not stmt.code.strip().lower().startswith(
                ("type(", "type (")):
            inside = True
        if inside or stmt.shared:
            continue
        code = stmt.new if stmt.new is not None else stmt.code
        match = _CLASS_SPEC.match(code)
        if match and match.group(2).lower() not in extended:
            stmt.new = f"{match.group(1)}type({match.group(2)})" + code[match.end():]


_RENAMING_USE = re.compile(
    r"^\s*use\s*(?P<nature>,\s*(?:non_)?intrinsic\s*::|::)?\s*(?P<module>[a-z_]\w*)\s*,"
    r"\s*(?!only\s*:)(?P<renames>[a-z_]\w*\s*=>.*)$", re.IGNORECASE)


def _split_renaming_use(stmt):
    """``use m, a => b`` as ``use m; use m, only: a => b``."""
    match = _RENAMING_USE.match(stmt.code)
    if not match or stmt.new is not None:
        return
    head = "use" + (match.group("nature") or "") + " " + match.group("module")
    stmt.new = f"{head}; {head}, only: {match.group('renames').strip()}"


def _drop_attribute(stmt, attribute):
    """Drop `attribute` (``contiguous``, ``protected``, ``value``) from a
    declaration, or the statement giving it (``PROTECTED :: a, b``), working
    on the statement as earlier rewrites left it.

    :returns: the lower-case names of the entities it applied to (none when
        the statement did not give it).
    """
    code = stmt.new if stmt.new is not None else stmt.code
    match = _ATTRIBUTE_STATEMENT[attribute].match(code)
    if match:
        stmt.new = ""
        return [n.strip().lower() for n in match.group("names").split(",") if n.strip()]
    if "::" not in code:
        return []
    attributes, entities = code.split("::", 1)
    if not _HAS_ATTRIBUTE[attribute].search(attributes + "::"):
        return []
    kept = [a for a in split_top_level(attributes) if a.strip().lower() != attribute]
    stmt.new = ",".join(kept).rstrip() + " ::" + entities
    return [_entity_name(e) for e in _split_entities(entities)]


_DROPPED = ("contiguous", "protected", "value")
_ATTRIBUTE_STATEMENT = {a: re.compile(rf"^\s*{a}\b\s*(?:::)?\s*(?P<names>[a-z_][\w\s,]*)$",
                                      re.IGNORECASE) for a in _DROPPED}
_HAS_ATTRIBUTE = {a: re.compile(rf",\s*{a}\s*(?=,|::)", re.IGNORECASE) for a in _DROPPED}


def _drop_recursive(stmt, header):
    prefix = header.group("prefix") or ""
    if re.search(r"recursive", prefix, re.IGNORECASE):
        stmt.new = (re.sub(r"recursive\s*", "", prefix, flags=re.IGNORECASE)
                    + header.group("kind") + " " + header.group("rest")).strip()


_NESTING = re.compile(r"^\s*(?:module(?!\s*procedure\b)|contains\s*$|use\b)", re.IGNORECASE)
_DO_VARIABLE = re.compile(r"^\s*do\s*(?:\d+\s*,?\s*)?(?P<var>[a-z]\w*)\s*=(?!=)", re.IGNORECASE)
_REAL = re.compile(r"^\s*(?:real|double\s*precision|complex|double\s*complex)\b", re.IGNORECASE)


def _check_do_variables(loops, declared, implicit, nested, path):
    """A DO loop whose variable is REAL (by declaration, or by the implicit
    rules of a unit neither USE nor a host can give it another type) is an
    error: a feature deleted from Fortran 95 that PSyclone cannot read."""
    for stmt, name in loops:
        target = declared.get(name.lower())
        if target is not None:
            typed = _TYPE_STATEMENT.match(target[0].code)
            type_text = typed.group("type") if typed else ""
        elif nested:
            continue
        else:
            type_text = implicit.type_of(name) or ""
        if not _REAL.match(type_text):
            continue
        label = _DO_VARIABLE.match(stmt.code).group(0)
        label = re.search(r"\d+", label[:label.lower().index(name.lower())])
        label = label.group(0) + " " if label else ""
        kind = "COMPLEX" if "complex" in type_text.lower() else "REAL"
        raise AdfortError(
            f"a DO loop with a {kind} variable ({name}), a feature deleted from Fortran 95, "
            f"is not supported: count the loop with an integer and compute {name} from it "
            f"(e.g. DO {label}K = 0, 4 with {name} = 0.25D0*K)",
            f"{path}:{stmt.first + 1}" if path else f"line {stmt.first + 1}")


def _rewrite_unit(unit, fixed_form=False, path=None, nested=True):
    implicit = _Implicit()
    loops = []     # (statement, variable) of DO statements
    header = unit[0]
    dummies = set()
    match = re.search(r"\(([^()]*)\)", header.code)
    if match and _TYPED_HEADER.match(header.code):
        dummies = {a.strip().lower() for a in match.group(1).split(",")}
    declared = {}          # name -> (statement, entity index)
    dimensions = []
    executable_text = []
    special = set()        # names in COMMON, DATA, SAVE, EXTERNAL, PARAMETER…
    for stmt in unit[1:]:
        code = stmt.code
        if stmt.shared:
            executable_text.append(code)  # several statements: left as they are
            continue
        spec = _IMPLICIT.match(code)
        if spec:
            if not implicit.apply(spec.group("spec")):
                implicit.types = {}
            continue
        if _INTRINSIC.match(code):
            stmt.new = ""
            continue
        dim = _DIMENSION.match(code)
        if dim:
            dimensions.append(stmt)
            continue
        typed = _TYPE_STATEMENT.match(code)
        if typed and not re.match(r"^\s*(?:real|integer|double|logical|complex|character)"
                                  r"\w*\s*function\b", code, re.IGNORECASE):
            for index, entity in enumerate(_split_entities(typed.group("entities"))):
                name = _entity_name(entity)
                if name:
                    declared.setdefault(name, (stmt, index))
            continue
        if re.match(r"^\s*(common|data|save|external|parameter|equivalence|namelist)\b",
                    code, re.IGNORECASE) and not is_assignment(code.strip()):
            special |= {w.lower() for w in re.findall(r"[a-z_]\w*", code, re.IGNORECASE)}
            continue
        if re.match(r"^\s*use\b", code, re.IGNORECASE):
            nested = True
        do = _DO_VARIABLE.match(code)
        if do and len(split_top_level(code)) > 1:
            loops.append((stmt, do.group("var")))
        executable_text.append(code)
    moved = []    # (declaration, name) of entities declared again with their bounds
    for stmt in dimensions:
        _move_dimensions(stmt, declared, implicit, fixed_form, moved)
    for decl, name in moved:
        typed, entities = _entities_of(decl)
        _set_entities(decl, typed, [e for e in entities
                                    if not (_entity_name(e) == name and _NAME.match(e))])
    _drop_typed_intrinsics(declared, dummies | special, executable_text)
    _check_do_variables(loops, declared, implicit, nested or not implicit.types, path)


def _entities_of(stmt):
    typed = _TYPE_STATEMENT.match(stmt.new if stmt.new is not None else stmt.code)
    return typed, _split_entities(typed.group("entities")) if typed else []


def _set_entities(stmt, typed, entities):
    if not entities:
        stmt.new = ""
        return
    colons = " :: " if typed.group("colons") else " "
    stmt.new = typed.group("type") + colons + ", ".join(entities)


def _move_dimensions(stmt, declared, implicit, fixed_form=False, moved=None):
    """Move the bounds of a DIMENSION statement to type declarations.

    In fixed form a type statement its bounds would make too long for its
    lines (66 columns each) is left alone: the entity is declared with its
    type and bounds where the DIMENSION statement was instead, and taken out
    of the type statement afterwards (`moved`: (declaration, name))."""
    left, new_declarations = [], []
    for entity in _split_entities(_DIMENSION.match(stmt.code).group("entities")):
        name = _entity_name(entity)
        target = declared.get(name)
        if target is not None:
            decl, index = target
            typed, entities = _entities_of(decl)
            if typed and index < len(entities) and _NAME.match(entities[index]):
                trial = list(entities)
                trial[index] = entity
                colons = " :: " if typed.group("colons") else " "
                text = typed.group("type") + colons + ", ".join(trial)
                if fixed_form and moved is not None and \
                        len(text) > 66 * (decl.last - decl.first + 1):
                    new_declarations.append(f"{typed.group('type')} {entity}")
                    moved.append((decl, name))
                    continue
                entities[index] = entity
                _set_entities(decl, typed, entities)
                continue
            left.append(entity)
        elif name and implicit.type_of(name):
            new_declarations.append(f"{implicit.type_of(name)} {entity}")
        else:
            left.append(entity)
    parts = ([f"dimension {', '.join(left)}"] if left else []) + new_declarations
    stmt.new = "; ".join(parts)


def _drop_typed_intrinsics(declared, excluded, executable_text):
    """Drop from declarations the intrinsic names the unit calls as functions."""
    text = "\n".join(executable_text)
    for name, (stmt, _) in declared.items():
        if name not in _INTRINSICS or name in excluded:
            continue
        if not re.search(rf"(?<![\w%]){name}\s*\(", text, re.IGNORECASE) or \
                re.search(rf"^[ \t]*{name}\s*(?:\([^=]*\))?\s*=(?!=)", text,
                          re.IGNORECASE | re.MULTILINE):
            continue
        typed, entities = _entities_of(stmt)
        if typed is None or typed.group("type").lower().startswith("character"):
            continue
        kept = [e for e in entities if not (_entity_name(e) == name and _NAME.match(e))]
        if len(kept) != len(entities):
            _set_entities(stmt, typed, kept)


def _render(lines, stmt, fixed_form):
    """Write `stmt.new` over the physical lines of `stmt`."""
    count = stmt.last - stmt.first + 1
    endings = [lines[n][len(lines[n].rstrip("\r\n")):] or "\n"
               for n in range(stmt.first, stmt.last + 1)]
    text = stmt.new
    if fixed_form:
        label = f"{stmt.label or '':<5}"
        chunks = [text[i:i + 66] for i in range(0, max(len(text), 1), 66)]
        if len(chunks) > count:
            return  # does not fit its lines: left as written
        out = [(label + " " if i == 0 else "     &") + chunk for i, chunk in enumerate(chunks)]
        out += ["C"] * (count - len(out))
    else:
        prefix = f"{stmt.label} " if stmt.label else ""
        indent = re.match(r"^\s*", lines[stmt.first]).group(0) if not prefix else ""
        out = [indent + prefix + text] + [""] * (count - 1)
    for offset, line in enumerate(out):
        lines[stmt.first + offset] = line + endings[offset]
