"""Routines passed as arguments: a copy of the callee per routine passed.

Numerical libraries take the user's function as an argument (QUADPACK's
``f``, MINPACK's ``fcn``, ODEPACK's ``f``/``jac``, declared ``EXTERNAL``),
which PSyclone cannot represent and whose derivative depends on which
routine is passed.  Where a routine adfort reads calls such a routine with
the name of an external routine (``call qk15(fun, a, b, result, abserr)``),
the front end writes a copy of the callee for that routine
(``qk15_fun(a, b, result, abserr)``, the dummy replaced by ``fun``
throughout) right after it, and the call calls the copy.  A copy passing
the routine on to another such routine is specialised in turn.  The callee
is an external routine, or a module procedure called from its own module
(the copy is seen only there).

This runs on the loaded sources of a run (:class:`adfort.reading.ReadPlan`)
before anything is parsed; the copies are adfort's own routines, which the
output carries where the generated code calls them as they are (like the
routines made from internal procedures).  Copies and rewritten calls keep
the line numbers of what they come from, for messages.
"""

import re

from adfort import naming, units
from adfort.units import map_outside_strings, split_comment, split_top_level

_EXTERNAL = re.compile(r"^external\b\s*(?:::)?\s*(?P<names>.*)$")
_EXTERNAL_ATTRIBUTE = re.compile(r"^[^:]*,\s*external\s*(?:,[^:]*)?::\s*(?P<names>.*)$")
_NAME = re.compile(r"[a-z_][a-z0-9_]*$")
# A type declaration or EXTERNAL statement and its entity list.
_DECLARATION = re.compile(
    r"^(?:external\b\s*(?:::)?|(?:real|integer|logical|complex|character|double\s*precision)"
    r"\b\s*(?:\*\s*\d+|\([^)]*\))?\s*(?:,[^:]*)?(?:::)?)\s*(?P<entities>[a-z_].*)$")
_MAX_ROUNDS = 5
_CALLED = re.compile(r"(?:^|\)\s*|\bthen\s+)call\s+([a-z_]\w*)")


def procedure_dummies(source, fixed, unit, statements):
    """{position: name} of the dummies of `unit` declared EXTERNAL, or
    CALLed (F77's dummy procedure needs no EXTERNAL statement: netlib's
    rkf45 FEHL just calls ``f``)."""
    external = set()
    for first, last, text in statements:
        if unit.first <= first <= unit.last:
            match = _EXTERNAL.match(text) or _EXTERNAL_ATTRIBUTE.match(text)
            if match:
                external |= {n.strip().split("(")[0].strip()
                             for n in split_top_level(match.group("names"))}
            external |= set(_CALLED.findall(text))
    return {position: name for position, name in enumerate(unit.arguments)
            if name in external}


def _joined(lines, first, last, fixed):
    """(label, code) of the statement on lines first..last, in its own case,
    continuation lines joined and comments dropped."""
    label, pieces = "", []
    for number in range(first, last + 1):
        line = lines[number].rstrip("\r\n")
        if fixed:
            if not line.strip() or line[:1] in "cC*!" or line.lstrip().startswith("!"):
                continue
            if number == first:
                label = line[:5].strip()
            pieces.append(split_comment(line[6:72])[0])
        else:
            code = split_comment(line)[0].strip()
            if not code:
                continue
            if code.endswith("&"):
                code = code[:-1]
            if code.startswith("&"):
                code = code[1:]
            if number == first:
                match = re.match(r"^(\d+)\s+", code)
                if match:
                    label, code = match.group(1), code[match.end():]
            pieces.append(code)
    return label, "".join(pieces) if fixed else " ".join(p.strip() for p in pieces)


def _emit(label, code, fixed):
    """Source lines of one statement (fixed form: wrapped at column 72)."""
    if not fixed:
        return [(f"{label} " if label else "") + code.strip() + "\n"]
    line = f"{label:<5} {code.strip()}"
    lines = []
    while len(line) > 72:
        lines.append(line[:72] + "\n")
        line = "     &" + line[72:]
    return lines + [line + "\n"]


def _rename(code, renames):
    """`code` with the identifiers in `renames` renamed (not components,
    nor keywords of actual arguments, ``g(f=x)``)."""
    depth = [0]

    def edit(text):
        out, position = [], 0
        for match in re.finditer(r"[()]|(?<![%\w])([A-Za-z_]\w*)\b", text):
            out.append(text[position:match.start()])
            token = match.group(0)
            if token in "()":
                depth[0] += 1 if token == "(" else -1
            elif not (depth[0] > 0 and re.match(r"\s*=(?!=)", text[match.end():])):
                token = renames.get(token.lower(), token)
            out.append(token)
            position = match.end()
        return "".join(out) + text[position:]
    return map_outside_strings(code, edit)


def _calls(code, callee):
    """[(start, open, close)] of the references ``callee(…)`` in `code`
    outside strings (positions of the name and its parentheses)."""
    found = []
    blanked = re.sub(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"",
                     lambda m: " " * len(m.group(0)), code)
    for match in re.finditer(rf"(?<![%\w]){re.escape(callee)}\s*\(", blanked, re.IGNORECASE):
        open_ = match.end() - 1
        depth = 0
        for position in range(open_, len(blanked)):
            depth += {"(": 1, ")": -1}.get(blanked[position], 0)
            if depth == 0:
                found.append((match.start(), open_, position))
                break
    return found


class Specialiser:
    """The copies of routines for the routines they are passed, over the
    loaded sources of one run.

    :param loaded: {path: :class:`adfort.reading.Loaded`} (changed in place).
    """

    def __init__(self, loaded):
        self.loaded = loaded
        self.clones = {}        # path: {copy name}
        self.made = {}          # (callee, ((position, actual), ...)): copy name
        self.scans = {}         # path: units.Scan of its final text, once known
        self._scans = {}

    def run(self):
        """Specialise until no call passes a known routine; {path: names of
        the copies written into it}."""
        for _ in range(_MAX_ROUNDS):
            if not self._round():
                # That round changed nothing: its scans are of the texts.
                self.scans = self._scans
                break
        return self.clones

    def _round(self):
        scans = self._scans = {p: units.scan(l.source, l.fixed)
                               for p, l in self.loaded.items()}
        if any(s is None for s in scans.values()):
            return False
        statements = {p: scans[p].statements for p in self.loaded}
        routines = {}
        for path, scan in scans.items():
            for unit in scan.units:
                if unit.kind in ("subroutine", "function") and unit.name:
                    routines.setdefault(unit.name, (path, unit))
        takes = {}
        # (Only EXTERNAL statements and CALLs make a dummy a procedure:
        # found once per file, not once per routine.)
        externals = {p: [s for s in found if _EXTERNAL.match(s[2]) or
                         _EXTERNAL_ATTRIBUTE.match(s[2]) or _CALLED.search(s[2])]
                     for p, found in statements.items()}
        for name, (path, unit) in routines.items():
            if not unit.arguments:
                continue
            dummies = procedure_dummies(self.loaded[path].source, self.loaded[path].fixed,
                                        unit, externals[path])
            if dummies:
                takes[name] = dummies
        if not takes:
            return False
        edits = {}          # path: [(first, last, new lines)]
        copies = {}         # path: [(after line, lines, origin line)]
        for path, scan in scans.items():
            lines = self.loaded[path].source.splitlines(keepends=True)
            for unit in scan.units:
                if unit.kind not in ("subroutine", "function", "program"):
                    continue
                made_here = set()
                for first, last, text in statements[path]:
                    if not unit.first <= first <= unit.last or first == unit.first:
                        continue
                    if not any(re.search(rf"(?<![%\w]){c}\s*\(", text) for c in takes):
                        continue
                    new = self._specialise_statement(lines, self.loaded[path].fixed,
                                                     first, last, unit, takes, routines,
                                                     copies, made_here)
                    if new is not None:
                        edits.setdefault(path, []).append((first, last, new))
                self._declare_copies(path, lines, unit, statements[path], made_here, edits)
        if not edits:
            return False
        for path in self.loaded:
            self._apply(path, edits.get(path, []), copies.get(path, []))
        return True

    def _declare_copies(self, path, lines, unit, statements, made, edits):
        """Declare each copy `made` {(copy, callee)} in `unit` as its callee
        is (``real(8), external :: simpson`` gets ``, simpson_rate``)."""
        fixed = self.loaded[path].fixed
        taken = {first for first, _, _ in edits.get(path, [])}
        for first, last, text in statements:
            if not unit.first < first <= unit.last or first in taken:
                continue
            match = _DECLARATION.match(text)
            if not match:
                continue
            listed = {e.strip().split("(")[0].strip()
                      for e in split_top_level(match.group("entities"))}
            extra = [copy for copy, callee in sorted(made) if callee in listed]
            if extra:
                label, code = _joined(lines, first, last, fixed)
                edits.setdefault(path, []).append(
                    (first, last, _emit(label, code + ", " + ", ".join(extra), fixed)))

    def _specialise_statement(self, lines, fixed, first, last, unit, takes, routines,
                              copies, made_here):
        """The new lines of the statement on lines first..last of `unit`,
        its calls passing routines calling copies instead (None: none)."""
        label, code = _joined(lines, first, last, fixed)
        changed = False
        for callee, dummies in takes.items():
            for start, open_, close in reversed(_calls(code, callee)):
                actuals = split_top_level(code[open_ + 1:close])
                chosen = {}
                for position, dummy in dummies.items():
                    if position >= len(actuals):
                        break
                    actual = actuals[position].strip()
                    if not _NAME.match(actual.lower()) or actual.lower() in unit.arguments \
                            or actual.lower() not in routines \
                            or routines[actual.lower()][1].module is not None:
                        break   # not a routine adfort can see outside modules
                    chosen[position] = actual.lower()
                else:
                    if not chosen or any("=" in a for a in actuals):
                        continue
                    if routines[callee][1].module not in (None, unit.module):
                        # The copy of a module procedure lives in its module
                        # and is seen only there.
                        continue
                    copy = self._copy(callee, chosen, routines, copies)
                    made_here.add((copy, callee))
                    rest = [a.strip() for p, a in enumerate(actuals) if p not in chosen]
                    code = code[:start] + copy + "(" + ", ".join(rest) + ")" + code[close + 1:]
                    changed = True
        return _emit(label, code, fixed) if changed else None

    def _copy(self, callee, chosen, routines, copies):
        key = (callee, tuple(sorted(chosen.items())))
        if key in self.made:
            return self.made[key]
        path, unit = routines[callee]
        taken = set(routines) | set(self.made.values())
        name = naming.unique_name(naming.specialised(callee, list(chosen.values())), taken)
        self.made[key] = name
        loaded = self.loaded[path]
        lines = loaded.source.splitlines(keepends=True)
        renames = {unit.arguments[p]: actual for p, actual in chosen.items()}
        if unit.kind == "function" and unit.result in (None, unit.name):
            renames[unit.name] = name     # the result variable has its name
        body = []
        for first, last, _ in units.statements(loaded.source, loaded.fixed):
            if not unit.first <= first <= unit.last:
                continue
            if body and body[-1][0] == (first, last):
                continue     # one more statement of the same lines
            label, code = _joined(lines, first, last, loaded.fixed)
            if first == unit.first:
                code = self._header(code, unit, chosen, name)
            elif first == unit.last:
                code = re.sub(rf"\b{re.escape(unit.name)}\b", name, code, flags=re.IGNORECASE)
            else:
                code = _rename(code, renames)
            body.append(((first, last), _emit(label, code, loaded.fixed)))
        copies.setdefault(path, []).append((unit.last, body))
        self.clones.setdefault(path, set()).add(name)
        return name

    @staticmethod
    def _header(code, unit, chosen, name):
        """The SUBROUTINE/FUNCTION statement of the copy: its name, and its
        dummies without those replaced."""
        match = re.search(rf"\b{re.escape(unit.name)}\s*\(", code, re.IGNORECASE)
        open_ = match.end() - 1
        close = code.index(")", open_)
        head = code[:match.start()] + name + code[match.start() + len(unit.name):open_]
        dummies = [d.strip() for d in split_top_level(code[open_ + 1:close])]
        kept = [d for p, d in enumerate(dummies) if p not in chosen]
        return head + "(" + ", ".join(kept) + ")" + code[close + 1:]

    def _apply(self, path, edits, copies):
        loaded = self.loaded[path]
        lines = loaded.source.splitlines(keepends=True)
        origin = loaded.origin or [(path, number + 1) for number in range(len(lines))]
        replaced = {}
        for first, last, new in edits:
            replaced[first] = (last, new)
        after = {}
        for line, body in copies:
            after.setdefault(line, []).extend(body)
        out, where = [], []
        number = 0
        while number < len(lines):
            if number in replaced:
                last, new = replaced[number]
                out.extend(new)
                where.extend([origin[number]] * len(new))
                number = last + 1
            else:
                out.append(lines[number])
                where.append(origin[number])
                number += 1
            for line in range(number - 1, number):
                for (first, _), emitted in after.pop(line, []):
                    out.extend(emitted)
                    where.extend([origin[first]] * len(emitted))
        loaded.source = "".join(out)
        loaded.origin = where
