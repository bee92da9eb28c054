"""Reversal directives in the source: ``!$adfort split`` and ``!$adfort
joint``.

Large codes set their reversal schedule where the calls are, as the
``--link`` option does from the command line:

- on the line before a ``CALL``: that call's link (the routine holding the
  call → the routine called) is reversed so;
- on the line before a ``SUBROUTINE``/``FUNCTION`` statement: every call to
  that routine is;
- with names, ``!$adfort joint step, fluxes``: every call to each of them.

A ``--link`` given on the command line wins over a directive (a user who
cannot edit the source has the last word), a directive on a call over one
on the routine called, and both over ``--schedule``.
"""

import re

from adfort.errors import AdfortError
from adfort.schedules import ADReversalSchedule, LinkReversalSchedule
from adfort.units import scan

_DIRECTIVE = re.compile(r"^\s*[!cC*]\$adfort\s+(?P<choice>split|joint)\b\s*(?:::?)?\s*"
                        r"(?P<names>[^!]*)", re.IGNORECASE)
_CALL = re.compile(r"^\s*(?:\d+\s+)?(?:if\s*\(.*\)\s*)?call\s+(?P<name>\w+)", re.IGNORECASE)
_ROUTINE = re.compile(r"^\s*(?:[\w\s(),=*]*\s)?(?:subroutine|function)\s+(?P<name>\w+)",
                      re.IGNORECASE)
_COMMENT = re.compile(r"^\s*!|^[cC*]")
_ANY = re.compile(r"^\s*[!cC*]\$adfort\b\s*(?P<word>[\w-]*)", re.IGNORECASE)
_KNOWN = ("split", "joint", "passive", "checkpoint", "fixed-point")


def _put(table, key, choice, place):
    """Record a directive's `choice` for `key`; two that disagree are an error."""
    if key in table and table[key][0] != choice:
        raise AdfortError(
            f"'!$adfort {choice}' contradicts '!$adfort {table[key][0]}' at "
            f"{table[key][1]} for the same calls: keep one", place)
    table[key] = (choice, place)


def _enclosing(units, index):
    """Name of the innermost routine whose lines hold line `index` (0-based)."""
    found = None
    for unit in units:
        if unit.kind in ("subroutine", "function") and unit.first <= index <= unit.last:
            if found is None or unit.first >= found.first:
                found = unit
    return found.name if found is not None else None


def schedule_directives(raw, source, fixed, path):
    """The reversal directives of one source.

    :param raw: the preprocessed text (directives are comments).
    :param source: the text compilers read (for the units).
    :param fixed: whether it is fixed form.
    :param path: the file, for messages.
    :returns: (links, callees): {(caller, callee): (choice, "file:line")}
        and {callee: (choice, "file:line")}, names in lower case, choice
        ``"split"`` or ``"joint"``.
    :raises AdfortError: for a directive that applies to nothing, or two
        that disagree.
    """
    links, callees = {}, {}
    lines = raw.splitlines()
    found = scan(source, fixed) if "$adfort" in raw.lower() else None
    units = found.units if found is not None else []

    for number, line in enumerate(lines, start=1):
        match = _DIRECTIVE.match(line)
        if not match:
            other = _ANY.match(line)
            if other is not None and other.group("word").lower() not in _KNOWN:
                # Never ignore a directive silently: the user expects it to act.
                raise AdfortError(
                    f"'!$adfort {other.group('word')}' is not a directive adfort knows "
                    f"(it knows {', '.join(_KNOWN)}): remove it or correct it",
                    f"{path}:{number}")
            continue
        choice, place = match.group("choice").lower(), f"{path}:{number}"
        listed = [n for n in re.split(r"[\s,]+", match.group("names")) if n]
        if listed:
            for name in listed:
                _put(callees, name.lower(), choice, place)
            continue
        following = next(((index, text) for index, text in enumerate(lines[number:], number)
                          if text.strip() and not _COMMENT.match(text)), (None, ""))
        index, text = following
        call = _CALL.match(text)
        if call is not None:
            caller = _enclosing(units, index)
            if caller is None:
                raise AdfortError(
                    f"'!$adfort {choice}' is before a CALL adfort cannot place in a routine: "
                    f"write '!$adfort {choice} {call.group('name')}' (every call to it)", place)
            _put(links, (caller, call.group("name").lower()), choice, place)
            continue
        routine = _ROUTINE.match(text)
        if routine is not None:
            _put(callees, routine.group("name").lower(), choice, place)
            continue
        raise AdfortError(
            f"'!$adfort {choice}' is not followed by a CALL or a SUBROUTINE/FUNCTION "
            f"statement: put it on the line before one, or name the routines "
            f"('!$adfort {choice} name')", place)
    return links, callees


class DirectedSchedule(ADReversalSchedule):
    """A schedule with the source's directives applied over `base`.

    :param base: the schedule from the command line or the API.
    :param links: {(caller, callee): (choice, place)} from directives on calls.
    :param callees: {callee: (choice, place)} from directives on routines.
    """

    def __init__(self, base, links, callees):
        self.base, self.links, self.callees = base, links, callees
        self.name = base.name

    def is_split(self, caller, callee):
        link = (caller.lower(), callee.lower())
        if isinstance(self.base, LinkReversalSchedule) and (
                link in self.base.strong_links or link in self.base.weak_links):
            return self.base.is_split(caller, callee)
        if link in self.links:
            return self.links[link][0] == "split"
        if link[1] in self.callees:
            return self.callees[link[1]][0] == "split"
        return self.base.is_split(caller, callee)

    def names(self, caller, callee):
        link = (caller.lower(), callee.lower())
        return link in self.links or link[1] in self.callees or self.base.names(caller, callee)

    def __repr__(self):
        return f"DirectedSchedule({self.base!r}, links={self.links}, callees={self.callees})"


def apply_directives(schedule, sources):
    """`schedule` with the directives of `sources` applied (itself when
    they hold none).

    :param sources: (path, Loaded) pairs of the files read.
    """
    links, callees = {}, {}
    for path, loaded in sources:
        if "$adfort" not in loaded.raw.lower():
            continue
        more_links, more_callees = schedule_directives(loaded.raw, loaded.source,
                                                       loaded.fixed, path)
        for table, more in ((links, more_links), (callees, more_callees)):
            for key, (choice, place) in more.items():
                _put(table, key, choice, place)
    if not links and not callees:
        return schedule
    return DirectedSchedule(schedule, links, callees)
