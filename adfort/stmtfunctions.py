"""Inlining FORTRAN 77 statement functions.

``F(X) = A*X**2 + B`` in the specification part defines a function; each
reference ``F(expr)`` becomes the body with the dummy arguments replaced
(parenthesised where needed), converted to the statement function's type
(declared or implicit).  The definition and the declaration of its name
go; a dummy argument name nothing else uses goes from its declaration.
"""

import re

from adfort.errors import AdfortError
from adfort.statements import code_outside_strings, matching_paren, split_top_level

_DEFINITION = re.compile(r"^(?P<name>[a-z]\w*)\s*\(\s*(?P<args>[a-z]\w*(?:\s*,\s*[a-z]\w*)*)?\s*\)"
                         r"\s*=(?![=>])\s*(?P<body>.+)$", re.I)
_TYPE = re.compile(
    r"^(?P<type>double\s*precision|double\s*complex|"
    r"(?:real|integer|logical|complex|character)(?:\s*\*\s*(?:\d+|\(\s*\*\s*\))|\s*\([^)]*\))?)"
    r"\s*(?:,[^:]*)?(?:::)?\s*(?P<entities>[a-z].*)$", re.I)
_IMPLICIT = re.compile(r"^implicit(?:\s+|(?=(?:none|double|real|integer|logical|complex|"
                       r"character|type|byte)(?![\w\s]*(?:\([^)]*\))?\s*=(?!=))))(?P<rest>.*)$",
                       re.I)


def _declared(statements, indices):
    """{name: (type text, has dimensions)} from the type declarations and
    DIMENSION/COMMON statements among `indices`."""
    found = {}
    for index in indices:
        text = statements[index].text
        masked = code_outside_strings(text)
        match = _TYPE.match(masked)
        if match:
            entities = text[match.start("entities"):]
            for entity in split_top_level(entities):
                name = re.match(r"\s*([a-z]\w*)\s*(\()?", entity, re.I)
                if name:
                    found[name.group(1).lower()] = (match.group("type"), bool(name.group(2)))
            continue
        dims = re.match(r"^(dimension|common|allocatable|pointer|target)\b", masked, re.I)
        if dims:
            rest = re.sub(r"^\w+\s*(?:::)?\s*(?:/[^/]*/)?", "", text)
            for entity in split_top_level(rest):
                name = re.match(r"\s*(?:/\w*/)?\s*([a-z]\w*)\s*(\()?", entity, re.I)
                if name and name.group(2):
                    previous = found.get(name.group(1).lower(), (None, False))
                    found[name.group(1).lower()] = (previous[0], True)
    return found


def _implicit_none(statements, indices):
    return any(re.match(r"^implicit\s*none", statements[i].text, re.I) for i in indices)


def looks_like_definition(text, statements, unit, spec):
    """Whether `text`, following the specification statements `spec` of
    `unit`, defines a statement function rather than assigning an array
    element.  A name declared as a scalar is one; an undeclared name only
    where implicit typing applies and no host or module can declare it."""
    match = _DEFINITION.match(code_outside_strings(text))
    if not match:
        return False
    name = match.group("name").lower()
    declared = _declared(statements, spec)
    if name in declared:
        return not declared[name][1]
    if _implicit_none(statements, spec) or getattr(unit, "hosted", False):
        return False
    return not any(re.match(r"^use\b", statements[i].text, re.I) for i in spec)


def definitions(statements, unit, spec):
    """The statement functions of a unit: [(index, name, [dummies], body)]."""
    found = []
    for position, index in enumerate(spec):
        text = statements[index].text
        if is_declaration_like(text):
            continue
        if looks_like_definition(text, statements, unit, spec[:position]):
            match = _DEFINITION.match(text)
            dummies = [a.strip().lower() for a in (match.group("args") or "").split(",")
                       if a.strip()]
            found.append((index, match.group("name").lower(), dummies,
                          match.group("body").strip()))
    return found


def is_declaration_like(text):
    masked = code_outside_strings(text)
    return "::" in masked or bool(_TYPE.match(masked)) and not _DEFINITION.match(masked)


def _implicit_type(name, statements, spec):
    """The type text implicit typing gives `name` in the unit."""
    rules = {}
    for index in spec:
        match = _IMPLICIT.match(statements[index].text)
        if not match or re.match(r"none", match.group("rest"), re.I):
            continue
        for spec_text in re.finditer(r"(?P<type>[a-z][\w\s*()=]*?)\s*\((?P<letters>[a-z\s,-]+)\)",
                                     match.group("rest"), re.I):
            for item in spec_text.group("letters").split(","):
                bounds = [b.strip().lower() for b in item.split("-")]
                if not bounds[0]:
                    continue
                low, high = bounds[0], bounds[-1]
                for code in range(ord(low), ord(high) + 1):
                    rules[chr(code)] = spec_text.group("type").strip()
    first = name[0].lower()
    if first in rules:
        return rules[first]
    return "integer" if "i" <= first <= "n" else "real"


def conversion(type_text):
    """A format string converting a value to the type `type_text`."""
    text = re.sub(r"\s+", " ", type_text.strip().lower())
    if text.replace(" ", "") == "doubleprecision":
        return "dble({})"
    match = re.match(r"^(real|integer|complex)\s*(?:\*\s*(\d+)|\(\s*(?:kind\s*=\s*)?([^)]*)\))?$",
                     text)
    if not match:
        if text.replace(" ", "") == "doublecomplex":
            return "cmplx({}, kind=kind(1.0d0))"
        return "({})"
    base, star, kind = match.groups()
    kind = star or (kind.strip() if kind else None)
    name = {"real": "real", "integer": "int", "complex": "cmplx"}[base]
    if kind and base == "complex":
        return f"cmplx({{}}, kind={kind})"
    return f"{name}({{}}, {kind})" if kind else f"{name}({{}})"


def _substitute(body, dummies, actuals):
    """`body` with each dummy argument replaced by its actual argument."""
    values = {d: _wrapped(a) for d, a in zip(dummies, actuals)}
    masked = code_outside_strings(body)
    out, last = [], 0
    for match in re.finditer(r"[a-z_]\w*", masked, re.I):
        before = masked[:match.start()]
        if re.search(r"(%|\d\.?|\.\s*)$", before) and not re.search(r"\.(and|or|not|eqv|neqv|"
                                                                     r"eq|ne|lt|le|gt|ge)\.\s*$",
                                                                     before, re.I):
            continue
        key = match.group(0).lower()
        if key in values:
            out.append(body[last:match.start()])
            out.append(values[key])
            last = match.end()
    out.append(body[last:])
    return "".join(out)


def _wrapped(arg):
    arg = arg.strip()
    masked = code_outside_strings(arg)
    if re.fullmatch(r"[\w%.]+", masked) and not re.match(r"^[\d.]+[de][+-]", masked, re.I):
        return arg
    match = re.match(r"^[a-z]\w*\s*\(", masked, re.I)
    if match and matching_paren(arg, match.end() - 1) == len(arg) - 1:
        return arg
    return f"({arg})"


def _expand(text, functions, path, line):
    """`text` with every reference to a statement function inlined."""
    for _ in range(200):
        masked = code_outside_strings(text)
        hit = None
        for name, (dummies, body, convert) in functions.items():
            for match in re.finditer(r"(?<![\w%])" + re.escape(name) + r"\s*\(", masked, re.I):
                hit = (match, name)
        if hit is None:
            return text
        match, name = hit
        dummies, body, convert = functions[name]
        open_at = match.end() - 1
        close = matching_paren(text, open_at)
        if close < 0:
            raise AdfortError(f"cannot read the reference to statement function '{name}'",
                              f"{path}:{line}")
        actuals = split_top_level(text[open_at + 1:close])
        if actuals == [""]:
            actuals = []
        if len(actuals) != len(dummies):
            raise AdfortError(f"statement function '{name}' takes {len(dummies)} arguments, "
                              f"this reference gives {len(actuals)}", f"{path}:{line}")
        value = convert.format(_substitute(body, dummies, actuals))
        text = text[:match.start()] + value + text[close + 1:]
    raise AdfortError("statement functions refer to each other without end",
                      f"{path}:{line}")


def inline(statements, unit, spec, exe, found, texts, path):
    """New statement texts of the unit (None: statement removed).

    :param found: the result of :func:`definitions`.
    :param texts: {index: text} of the unit's statements.
    """
    texts = dict(texts)
    declared = _declared(statements, spec)
    functions = {}
    for index, name, dummies, body in found:
        type_text = declared[name][0] if name in declared and declared[name][0] else \
            _implicit_type(name, statements, spec)
        body = _expand(body, functions, path, statements[index].line)
        functions[name] = (dummies, body, conversion(type_text))
        texts[index] = None
    for index in exe:
        texts[index] = _expand(texts[index], functions, path, statements[index].line)
    dummies = {d for _, _, args, _ in found for d in args}
    used = set()
    for index in exe + [i for i in spec if texts.get(i) is not None]:
        if _TYPE.match(code_outside_strings(texts[index])):
            continue
        used |= {w.lower() for w in re.findall(r"[a-z_]\w*", code_outside_strings(texts[index]),
                                               re.I)}
    header = statements[unit.header].text if unit.header >= 0 else ""
    used |= {w.lower() for w in re.findall(r"[a-z_]\w*", header, re.I)}
    drop = set(functions) | {d for d in dummies if d not in used}
    for index in spec:
        if texts.get(index) is None:
            continue
        texts[index] = _drop_entities(texts[index], drop)
    return texts


def _drop_entities(text, names):
    """A type declaration without the entities called one of `names`
    (None when none is left); other statements unchanged."""
    masked = code_outside_strings(text)
    match = _TYPE.match(masked)
    if not match or _DEFINITION.match(masked):
        return text
    head = text[:match.start("entities")]
    entities = split_top_level(text[match.start("entities"):])
    kept = [e for e in entities
            if (re.match(r"\s*([a-z]\w*)", e, re.I) or [None, ""])[1].lower() not in names]
    if len(kept) == len(entities):
        return text
    if not kept:
        return None
    return head + ", ".join(e.strip() for e in kept)
