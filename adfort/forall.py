"""FORALL statements and constructs as DO loops, before parsing.

A FORALL assignment evaluates every right-hand side before it assigns
anything, and in a FORALL construct each statement completes before the
next begins.  When no statement reads the array it assigns (in its
right-hand side or subscripts), and neither the mask nor a bound reads an
array the FORALL assigns, a loop nest per statement (with an IF for the
mask) computes the same values (reading the very element a statement
assigns is fine); adfort differentiates those.  Any other
FORALL is left as it is, and the fence reports it.  Lines keep their
numbers: a statement and its loops share its lines.  (The index variables
hold their last value after the loops, as DO variables do.)
"""

import re

from adfort.units import split_comment, split_top_level

_HEADER = re.compile(r"^(?P<lead>\s*)(?:(?P<name>\w+)\s*:\s*)?forall\s*\(", re.IGNORECASE)
_END = re.compile(r"^\s*end\s*forall\b", re.IGNORECASE)
_ASSIGNMENT = re.compile(r"^\s*(?P<lhs>\w+)\s*(?P<subscripts>\(.*?\))?\s*=(?!=)(?P<rhs>.*)$",
                         re.IGNORECASE)
_TRIPLET = re.compile(r"^\s*(?P<index>\w+)\s*=\s*(?P<bounds>.+)$")
_IDENTIFIER = re.compile(r"[a-z_]\w*", re.IGNORECASE)


def lower_forall(source, fixed_form):
    """`source` with the FORALLs that can be loops written as loops (free
    form only; lines keep their numbers)."""
    if fixed_form or not re.search(r"\bforall\b", source, re.IGNORECASE):
        return source
    lines = source.splitlines(keepends=True)
    number = 0
    while number < len(lines):
        line = lines[number]
        header = _HEADER.match(line)
        if header is None or line.rstrip().endswith("&"):
            number += 1
            continue
        code, _ = split_comment(line)
        spec, rest = _balanced(code, header.end() - 1)
        if spec is None:
            number += 1
            continue
        controls = _controls(spec)
        if controls is None:
            number += 1
            continue
        loops, mask = controls
        ending = line[len(line.rstrip("\r\n")):]
        lead = header.group("lead")
        if rest.strip():                       # FORALL (…) a(i) = …
            body = [rest.strip()]
            if _independent(body, mask, loops):
                lines[number] = lead + "; ".join(
                    _opening(loops, mask) + body + _closing(loops, mask)) + \
                    (" " + _.strip() if _.strip() else "") + ending
            number += 1
            continue
        end = number + 1
        while end < len(lines) and not _END.match(lines[end]):
            end += 1
        if end == len(lines):
            break
        groups = _statement_groups(lines, number + 1, end)
        if groups and all(_independent([text], mask, loops, construct=[
                g[1] for g in groups]) for _, text in groups):
            # Each statement of the construct completes before the next: a
            # loop nest of its own, on its own lines.
            for (first, last), _ in groups:
                code, comment = split_comment(lines[first])
                indent = code[:len(code) - len(code.lstrip())]
                lines[first] = indent + "; ".join(_opening(loops, mask)) + "; " + \
                    code.lstrip() + comment
                ending = lines[last][len(lines[last].rstrip("\r\n")):]
                code, comment = split_comment(lines[last].rstrip("\r\n"))
                lines[last] = code.rstrip() + "; " + "; ".join(_closing(loops, mask)) + \
                    (" " + comment.strip() if comment.strip() else "") + ending
            lines[number] = _blank(lines[number])
            lines[end] = _blank(lines[end])
        number = end + 1
    return "".join(lines)


def _statement_groups(lines, start, end):
    """[((first, last), statement text)] of the lines start..end-1, or None
    when one is not an assignment."""
    groups, first, text = [], None, ""
    for number in range(start, end):
        code, _ = split_comment(lines[number])
        code = code.strip()
        if not code and first is None:
            continue
        if first is None:
            first, text = number, ""
        if code.startswith("&"):
            code = code[1:]
        text += code[:-1] if code.endswith("&") else code
        if not code.endswith("&"):
            if not _ASSIGNMENT.match(text):
                return None
            groups.append(((first, number), text))
            first = None
    return groups if first is None else None


def _blank(line):
    return line[len(line.rstrip("\r\n")):]


def _balanced(line, start):
    """(text inside the parentheses opening at `start`, text after them)."""
    depth = 0
    for position in range(start, len(line)):
        if line[position] == "(":
            depth += 1
        elif line[position] == ")":
            depth -= 1
            if depth == 0:
                return line[start + 1:position], line[position + 1:]
    return None, None


def _controls(spec):
    """([(index, lower, upper, stride)], mask or None), or None."""
    loops, mask = [], None
    for part in split_top_level(spec):
        triplet = _TRIPLET.match(part)
        if triplet and "==" not in part:
            bounds = split_top_level(triplet.group("bounds").replace(":", ","))
            if len(bounds) not in (2, 3) or mask is not None:
                return None
            loops.append((triplet.group("index"),) + tuple(b.strip() for b in bounds))
        elif loops and mask is None:
            mask = part.strip()
        else:
            return None
    if not loops or any(":" in p and p.count(":") > 2 for p in spec.split(",")):
        return None
    return loops, mask


def _independent(statements, mask, loops, construct=()):
    """Whether no statement reads an array it assigns, and neither the mask
    nor a bound reads one the FORALL (all of `construct`) assigns."""
    assigned = set()
    for statement in list(statements) + list(construct):
        match = _ASSIGNMENT.match(statement)
        if match is None:
            return False
        assigned.add(match.group("lhs").lower())
    indices = {index.lower() for index, *_ in loops}
    if assigned & indices:
        return False
    controls = [mask or ""] + [" ".join(bounds) for _, *bounds in loops]
    if _names(controls) & assigned:
        return False
    for statement in statements:
        match = _ASSIGNMENT.match(statement)
        own = match.group("lhs").lower()
        subscripts = match.group("subscripts") or ""
        if own in _names([subscripts]) or not _same_element_only(
                match.group("rhs"), own, subscripts):
            return False
    return True


def _same_element_only(text, name, subscripts):
    """Whether `text` reads array `name` only at `subscripts` (the element
    the statement assigns, as in ``a(i) = a(i) + b(i)``)."""
    text = _strip_strings(text)
    want = re.sub(r"\s+", "", subscripts).lower()
    for match in re.finditer(rf"(?<![\w%]){re.escape(name)}\b", text, re.IGNORECASE):
        after = text[match.end():].lstrip()
        if not after.startswith("(") or not want:
            return False
        inside, _ = _balanced(after, 0)
        if inside is None or re.sub(r"\s+", "", "(" + inside + ")").lower() != want:
            return False
    return True


def _names(texts):
    return {name.lower() for text in texts for name in _IDENTIFIER.findall(_strip_strings(text))}


def _strip_strings(text):
    return re.sub(r"'[^']*'|\"[^\"]*\"", " ", text)


def _opening(loops, mask):
    out = []
    for index, lower, upper, *stride in reversed(loops):
        out.append(f"do {index} = {lower}, {upper}" + (f", {stride[0]}" if stride else ""))
    if mask:
        out.append(f"if ({mask}) then")
    return out


def _closing(loops, mask):
    return (["end if"] if mask else []) + ["end do"] * len(loops)
