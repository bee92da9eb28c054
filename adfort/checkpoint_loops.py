"""Checkpointed time loops: ``!$adfort checkpoint binomial(snapshots=S)``
and ``!$adfort checkpoint every(k)`` on the line(s) before a DO loop, or
``--checkpoint ROUTINE:LOOP=SCHEDULE`` for code the user cannot annotate.

The front end (before PSyclone reads the source) makes the loop body an
internal procedure of the loop's routine, which :mod:`adfort.internal`
then makes a procedure of its own taking the host variables it uses::

    do it = 1, nt                       do it = 1, nt
      <body>                    ->        call model_ckpt_step(it, u, ...)
    end do                              end do

The step routine is differentiated like any callee (always split: its
``_rec`` and ``_ret`` motions), and the loop's adjoint is a driver over the
checkpointing schedule of :mod:`adfort.checkpointing` for the trip count
the loop has at run time (see
:mod:`adfort.transformations.checkpoint`).

A loop adfort cannot reverse from snapshots is an error at file:line: a
DO WHILE, a loop left by EXIT, CYCLE of it, GO TO out of it or RETURN, an
ALLOCATE/DEALLOCATE in the body (the state would change shape).
"""

import re

from adfort.errors import AdfortError
from adfort.schedules import ADReversalSchedule
from adfort import naming
from adfort.naming import CHECKPOINT_STEP_PROCEDURE as _STEP
from adfort.units import scan, statements

_DIRECTIVE = re.compile(r"^\s*[!cC*]\$adfort\s+checkpoint\b(?P<rest>.*)$", re.IGNORECASE)
_FIXED_POINT = re.compile(r"^\s*[!cC*]\$adfort\s+fixed-point\b(?P<rest>.*)$", re.IGNORECASE)
_FIXED_ARGS = re.compile(r"^\(\s*tol\s*=\s*(?P<tol>[^,)]*?)\s*,"
                         r"\s*maxiter\s*=\s*(?P<maxiter>[^,)]*?)\s*\)$")
_REAL = re.compile(r"^(\d+\.?\d*|\.\d+)([ed][+-]?\d+)?(_\w+)?$")
_BINOMIAL = re.compile(r"^binomial\s*\(\s*(?:snapshots\s*=\s*)?(?P<value>[^)]*?)\s*\)$")
_EVERY = re.compile(r"^every\s*\(\s*(?:k\s*=\s*)?(?P<value>[^)]*?)\s*\)$")
_DO = re.compile(r"^(?:(?P<name>[a-z_]\w*)\s*:\s*)?do\b\s*(?P<rest>.*)$")
_LABEL_DO = re.compile(r"^(?P<label>\d+)\s*,?\s*(?P<rest>.*)$")
_WHILE = re.compile(r"^(?:\d+\s*,?\s*)?while\b")
_CONTROL = re.compile(r"^(?P<var>[a-z_]\w*)\s*=")
_END_DO = re.compile(r"^end\s*do\b\s*(?P<name>\w*)$")
_EXIT = re.compile(r"^(?:if\s*\(.*\)\s*)?(?P<word>exit|cycle)\b\s*(?P<name>\w*)\s*$")
_RETURN = re.compile(r"^(?:if\s*\(.*\)\s*)?return\b")
_GOTO = re.compile(r"(?:^|\)\s*)go\s*to\s*(?P<labels>\(?[\d\s,]+\)?)")
_ALLOCATE = re.compile(r"^(?:if\s*\(.*\)\s*)?(?P<word>allocate|deallocate)\s*\(")


class Checkpoint:
    """A checkpointed loop's schedule.

    :ivar kind: ``"binomial"`` or ``"every"``.
    :ivar value: the number of snapshots (binomial) or the period k (every).
    :ivar place: ``file:line`` of the directive (or ``--checkpoint``).
    """

    def __init__(self, kind, value, place):
        self.kind, self.value, self.place = kind, value, place

    def text(self):
        """The directive's schedule as the user writes it."""
        if self.kind == "fixed-point":
            return f"fixed-point(tol={self.value[0]}, maxiter={self.value[1]})"
        if self.kind == "binomial":
            return f"binomial(snapshots={self.value})"
        return f"every({self.value})"

    def __repr__(self):
        return f"Checkpoint({self.text()} at {self.place})"


def parse_schedule(text, place):
    """The :class:`Checkpoint` of ``binomial(snapshots=S)`` or ``every(k)``.

    :raises AdfortError: naming `place` for anything else.
    """
    spec = re.sub(r"\s+", " ", text.split("!")[0].strip().lower())
    for kind, pattern, what in (("binomial", _BINOMIAL, "snapshots S"),
                                ("every", _EVERY, "period k")):
        match = pattern.match(spec)
        if match is None:
            continue
        value = match.group("value").strip()
        if not re.fullmatch(r"\d+", value) or int(value) < 1:
            raise AdfortError(
                f"checkpoint schedule '{text.strip()}': the {what} must be a positive "
                f"integer literal (got '{value or 'nothing'}'), e.g. "
                + ("'binomial(snapshots=20)'" if kind == "binomial" else "'every(100)'"),
                place)
        return Checkpoint(kind, int(value), place)
    raise AdfortError(
        f"checkpoint schedule '{text.strip() or '(none)'}' is not one adfort knows: write "
        "'!$adfort checkpoint binomial(snapshots=S)' or '!$adfort checkpoint every(k)'",
        place)


def parse_fixed_point(text, place):
    """The :class:`Checkpoint` (kind ``fixed-point``, value (tol text,
    maxiter)) of ``(tol=…, maxiter=…)``.

    :raises AdfortError: naming `place` for anything else.
    """
    spec = re.sub(r"\s+", " ", text.split("!")[0].strip().lower())
    match = _FIXED_ARGS.match(spec)
    if match is None or not _REAL.match(match.group("tol")) or \
            not re.fullmatch(r"\d+", match.group("maxiter")) or int(match.group("maxiter")) < 1:
        raise AdfortError(
            f"'!$adfort fixed-point{text.rstrip()}': write '!$adfort fixed-point(tol=T, "
            "maxiter=M)', T a positive real literal (the adjoint iteration stops when its "
            "change is below T relative to its size), M a positive integer literal "
            "(the most adjoint iterations), e.g. '!$adfort fixed-point(tol=1e-10, "
            "maxiter=200)'", place)
    tol = match.group("tol")
    if float(re.sub(r"_\w+$", "", tol).replace("d", "e")) <= 0:
        raise AdfortError("the tolerance of '!$adfort fixed-point' must be positive", place)
    return Checkpoint("fixed-point", (tol, int(match.group("maxiter"))), place)


def parse_cli(text):
    """``ROUTINE:LOOP=SCHEDULE`` of ``--checkpoint`` as (routine, loop,
    :class:`Checkpoint`); LOOP is the loop's position among the routine's DO
    loops (1 = the first) or its DO variable.

    :raises AdfortError: for a malformed value.
    """
    match = re.fullmatch(r"\s*(?P<routine>\w+)\s*:\s*(?P<loop>\w+)\s*=\s*(?P<spec>.+)", text)
    if match is None:
        raise AdfortError(
            f"--checkpoint '{text}': write ROUTINE:LOOP=SCHEDULE, LOOP the position of the "
            "DO loop in ROUTINE (1 = the first) or its DO variable, SCHEDULE "
            "'binomial(snapshots=S)' or 'every(k)', e.g. "
            "--checkpoint 'model:1=binomial(snapshots=20)'")
    spec = parse_schedule(match.group("spec"), f"--checkpoint {text}")
    return match.group("routine").lower(), match.group("loop").lower(), spec


def _labels(lines, fixed):
    """{line index: label} of the labelled statement lines."""
    found = {}
    for index, line in enumerate(lines):
        if fixed:
            if line[:1] in "cC*!" or len(line) < 6:
                continue
            field = line[:5].strip()
        else:
            match = re.match(r"^\s*(\d+)\s", line)
            field = match.group(1) if match else ""
        if field.isdigit():
            found[index] = str(int(field))
    return found


def _loop_end(stmts, labels, position):
    """Position in `stmts` of the last statement of the DO loop at
    `position` (its END DO, or its labelled terminal statement)."""
    match = _DO.match(stmts[position][2])
    label = _LABEL_DO.match(match.group("rest"))
    if label is not None and not _CONTROL.match(match.group("rest")):
        wanted = str(int(label.group("label")))
        for later in range(position + 1, len(stmts)):
            if labels.get(stmts[later][0]) == wanted:
                return later
        return None
    depth = 0
    for later in range(position, len(stmts)):
        text = stmts[later][2]
        opened = _DO.match(text)
        if opened is not None:
            inner = _LABEL_DO.match(opened.group("rest"))
            if inner is None or _CONTROL.match(opened.group("rest")):
                depth += 1
        elif _END_DO.match(text):
            depth -= 1
            if depth == 0:
                return later
    return None


def _check_body(stmts, labels, first, last, name, place_of, loop_place):
    """Reject a body adfort cannot run step by step from a snapshot."""
    defined = {labels.get(stmts[k][0]) for k in range(first, last + 1)} - {None}
    depth = 0
    for k in range(first + 1, last):
        text = stmts[k][2]
        place = place_of(stmts[k][0])
        opened = _DO.match(text)
        if opened is not None:
            rest = opened.group("rest")
            if _LABEL_DO.match(rest) is None or _CONTROL.match(rest):
                depth += 1
            continue
        if _END_DO.match(text):
            depth -= 1
            continue
        if _DIRECTIVE.match(text) is not None or _FIXED_POINT.match(text) is not None:
            continue
        jump = _EXIT.match(text)
        if jump is not None and (depth == 0 or (name and jump.group("name") == name)):
            raise AdfortError(
                f"'{jump.group('word').upper()}' of the checkpointed loop at {loop_place}: "
                "a checkpointed loop must run all its iterations (its trip count is known "
                "when it starts); move the test out of the loop, or remove the "
                "'!$adfort checkpoint' directive", place)
        if _RETURN.match(text):
            raise AdfortError(
                f"RETURN inside the checkpointed loop at {loop_place}: a checkpointed loop "
                "must run all its iterations; set a flag and leave the loop after it, or "
                "remove the '!$adfort checkpoint' directive", place)
        goto = _GOTO.search(text)
        if goto is not None:
            targets = set(re.findall(r"\d+", goto.group("labels")))
            if {str(int(t)) for t in targets} - defined:
                raise AdfortError(
                    f"GO TO out of the checkpointed loop at {loop_place}: a checkpointed "
                    "loop must run all its iterations; restructure the jump, or remove the "
                    "'!$adfort checkpoint' directive", place)
        alloc = _ALLOCATE.match(text)
        if alloc is not None:
            raise AdfortError(
                f"{alloc.group('word').upper()} inside the checkpointed loop at "
                f"{loop_place}: adfort snapshots the state a step overwrites, which must "
                "keep its shape from step to step; allocate before the loop, or remove "
                "the '!$adfort checkpoint' directive", place)


def _do_variable(text):
    """The DO variable of a DO statement's text, or None."""
    opened = _DO.match(text)
    if opened is None:
        return None
    control = _CONTROL.match(_LABEL_DO.sub(lambda m: m.group("rest"), opened.group("rest")))
    return control.group("var") if control else None


_DECLARATION = re.compile(
    r"^(integer|real|double|logical|character|complex|type\s*\(|class\s*\(|dimension|"
    r"parameter|save|data|common|equivalence|implicit|use|external|intrinsic|"
    r"allocatable|pointer|target|namelist)\b")


def _declaration(text):
    """Whether statement `text` (lower case) declares, not assigns: DATA(1) = x
    assigns an array named DATA."""
    from adfort.controlflow import is_assignment
    return bool(_DECLARATION.match(text)) and not is_assignment(text)


def _step_locals(stmts, position, last, host, host_of):
    """DO variables of loops inside the checkpointed loop's body that the
    rest of its routine does not use: locals of the step procedure (the
    step need not pass them, nor snapshot them)."""
    inner = []
    for k in range(position + 1, last):
        name = _do_variable(stmts[k][2])
        if name is None or name in inner:
            continue
        pattern = re.compile(rf"\b{name}\b")
        first_use = next(j for j in range(position + 1, last) if pattern.search(stmts[j][2]))
        if first_use != k:
            continue        # read before its loop sets it: it may carry a value
        # What the step leaves in it matters only to a statement after the
        # loop reading it before a DO sets it again (uses before the loop,
        # an initialisation loop ``do k = 1, n``, see their own values).
        after = [s for j, s in enumerate(stmts) if j > last
                 and host.first <= s[0] <= host.last and host_of(s[0]) is host
                 and not _declaration(s[2]) and pattern.search(s[2])]
        if not after or _do_variable(after[0][2]) == name:
            inner.append(name)
    return inner


def _directives(lines, path, origin):
    """[(line index, Checkpoint)] of the checkpoint directives of `lines`."""
    found = []
    for index, line in enumerate(lines):
        match = _DIRECTIVE.match(line)
        if match is not None:
            found.append((index, parse_schedule(match.group("rest"),
                                                _place(path, origin, index))))
        match = _FIXED_POINT.match(line)
        if match is not None:
            found.append((index, parse_fixed_point(match.group("rest"),
                                                   _place(path, origin, index))))
    return found


def _place(path, origin, index):
    if origin is not None and index < len(origin) and origin[index]:
        return "%s:%s" % origin[index]
    return f"{path}:{index + 1}"


def outline_checkpointed_loops(source, fixed, origin, path, requested=(), check_only=False):
    """Make the body of each checkpointed DO loop an internal procedure.

    :param requested: (routine, loop, Checkpoint) from ``--checkpoint``.
    :param check_only: only check the directives and loops (on the user's
        text, before labelled loops and jumps are rewritten).
    :returns: (source, origin, {internal procedure name: (host, Checkpoint)});
        the source unchanged when no loop is checkpointed.
    :raises AdfortError: for a directive not before a DO loop, a loop that
        cannot be checkpointed, a ``--checkpoint`` naming no loop.
    """
    requested = [r for r in requested]
    if "$adfort" not in source.lower() and not requested:
        return source, origin, {}
    lines = source.splitlines()
    marks = _directives(lines, path, origin)
    if not marks and not requested:
        return source, origin, {}
    stmts = statements(source, fixed)
    labels = _labels(lines, fixed)
    found = scan(source, fixed)
    hosts = [u for u in (found.units if found is not None else [])
             if u.kind in ("subroutine", "function")]

    def host_of(index):
        best = None
        for unit in hosts:
            if unit.first <= index <= unit.last and (best is None or unit.first >= best.first):
                best = unit
        return best

    chosen = []   # (position in stmts, Checkpoint)
    for index, spec in marks:
        position = next((k for k, s in enumerate(stmts) if s[0] > index), None)
        # Further directives or comments between: the next statement.
        text = stmts[position][2] if position is not None else ""
        opened = _DO.match(text)
        if spec.kind == "fixed-point":
            if opened is None or not _WHILE.match(opened.group("rest")):
                raise AdfortError(
                    "'!$adfort fixed-point' is not followed by a DO WHILE loop: put it on the "
                    "line before the DO WHILE statement of the iterative solver", spec.place)
            chosen.append((position, spec))
            continue
        if opened is None:
            raise AdfortError(
                "'!$adfort checkpoint' is not followed by a DO loop: put it on the line "
                "before the DO statement of the time loop", spec.place)
        if _WHILE.match(opened.group("rest")):
            raise AdfortError(
                "'!$adfort checkpoint' is before a DO WHILE loop, whose trip count is not "
                "known when it starts: checkpoint a counted DO loop (DO n = 1, nsteps)",
                spec.place)
        if _do_variable(text) is None:
            raise AdfortError(
                "'!$adfort checkpoint' is before a DO loop without a loop control: "
                "checkpoint a counted DO loop (DO n = 1, nsteps)", spec.place)
        chosen.append((position, spec))
    for routine, loop, spec in requested:
        units = [u for u in hosts if u.name == routine]
        if not units:
            continue
        unit = units[0]
        spec.applied = True
        loops = [k for k, s in enumerate(stmts) if unit.first <= s[0] <= unit.last
                 and _DO.match(s[2]) and not _WHILE.match(_DO.match(s[2]).group("rest"))
                 and host_of(s[0]) is unit]
        if loop.isdigit():
            picked = loops[int(loop) - 1] if 0 < int(loop) <= len(loops) else None
        else:
            picked = next((k for k in loops if _do_variable(stmts[k][2]) == loop), None)
        if picked is None:
            raise AdfortError(
                f"{spec.place}: routine '{routine}' has no counted DO loop '{loop}' "
                f"(it has {len(loops)}): give the loop's position (1 = the first) or its "
                "DO variable")
        if any(p == picked for p, _ in chosen):
            raise AdfortError(f"{spec.place}: the loop already has a '!$adfort checkpoint' "
                              "directive: keep one", _place(path, origin, stmts[picked][0]))
        chosen.append((picked, spec))
    if not chosen:
        return source, origin, {}
    if origin is None and not check_only:
        origin = [(path, n) for n in range(1, len(lines) + 1)]

    removed, replaced, inserts, made = set(), {}, {}, {}
    counts = {}
    spans = []
    for position, spec in sorted(chosen, key=lambda c: c[0]):
        loop_place = _place(path, origin, stmts[position][0])
        last = _loop_end(stmts, labels, position)
        if last is None:
            raise AdfortError("adfort cannot find the end of the checkpointed DO loop",
                              loop_place)
        opened = _DO.match(stmts[position][2])
        _check_body(stmts, labels, position, last, opened.group("name"),
                    lambda i: _place(path, origin, i), loop_place)
        first_line, last_line = stmts[position][1] + 1, stmts[last][0] - 1
        if check_only:
            continue
        if not _END_DO.match(stmts[last][2]) or stmts[last][0] != stmts[last][1] or \
                any(s[0] == stmts[last][0] for k, s in enumerate(stmts) if k != last):
            raise AdfortError(
                "the checkpointed DO loop ends on a statement of its body: end it with "
                "END DO (or a CONTINUE)", _place(path, origin, stmts[last][0]))
        for begin, end, other in spans:
            if begin <= position <= end or position <= begin <= last:
                raise AdfortError(
                    f"checkpointed (or fixed-point) loops nested in each other ({other} and "
                    f"{loop_place}): keep the directive of one of them", loop_place)
        spans.append((position, last, loop_place))
        host = host_of(stmts[position][0])
        if host is None:
            raise AdfortError("a checkpointed DO loop must be in a subroutine or function "
                              "(not a main program)", loop_place)
        counts[host.name] = counts.get(host.name, 0) + 1
        base = naming.FIXED_POINT_STEP_PROCEDURE if spec.kind == "fixed-point" else _STEP
        name = base if counts[host.name] == 1 else f"{base}{counts[host.name]}"
        while name in host.names:
            name += "_"
        made[name] = (host.name, spec)
        body = list(range(first_line, last_line + 1))
        removed.update(body)
        indent = "      " if fixed else re.match(r"^\s*", lines[stmts[position][0]]).group(0) \
            + "  "
        replaced[stmts[position][1]] = [(f"{indent}call {name}()", stmts[position][0])]
        contains = next((s for s in stmts if host.first <= s[0] <= host.last
                         and s[2] == "contains" and host_of(s[0]) is host), None)
        pad = "      " if fixed else "  "
        own = _step_locals(stmts, position, last, host, host_of)
        procedure = [(f"{pad}subroutine {name}()", stmts[position][0])] + \
            [(f"{pad}  integer :: {', '.join(own)}", stmts[position][0])] * bool(own) + \
            [(lines[i], i) for i in body] + \
            [(f"{pad}end subroutine {name}", stmts[last][0])]
        if contains is not None:
            inserts.setdefault(contains[1], []).extend(procedure)
        else:
            key = host.last - 1
            inserts.setdefault(key, [])
            if not any(text.strip().lower() == "contains" for text, _ in inserts[key]):
                inserts[key].insert(0, (f"{pad}contains", host.last))
            inserts[key].extend(procedure)
    if check_only:
        return source, origin, {}
    out, out_origin = [], []
    for index, line in enumerate(lines):
        if index not in removed:
            out.append(line)
            out_origin.append(origin[index])
        for text, source_index in replaced.get(index, []):
            out.append(text)
            out_origin.append(origin[source_index])
        for text, source_index in inserts.get(index, []):
            out.append(text)
            out_origin.append(origin[source_index])
    return "\n".join(out) + "\n", out_origin, made


def checkpoint_hoist_error(err, steps):
    """`err` of :func:`adfort.internal.hoist_internal_procedures` told in
    terms of the checkpointed loop when it is about a step procedure."""
    for name, (host, spec) in steps.items():
        if f"internal procedure '{name}'" in str(err.message if hasattr(err, "message")
                                                 else err):
            return AdfortError(
                f"the checkpointed loop of '{host}' reads or writes an assumed-shape, "
                f"allocatable or pointer array of '{host}', which is outside any module: "
                f"put '{host}' in a module to checkpoint its loop", spec.place)
    return err


def mark_checkpointed_loops(tree, steps, hoisted):
    """Mark each checkpointed loop of `tree` (``adfort_checkpoint``: its
    :class:`Checkpoint`) and note the step routines
    (``tree.adfort_checkpoint_steps``: {routine name: Checkpoint})."""
    from psyclone.psyir.nodes import Call, Loop, WhileLoop
    from adfort.naming import hoisted as hoisted_name
    tree.adfort_checkpoint_steps = {}
    if not steps:
        return
    names = {}
    for name, (host, spec) in steps.items():
        wanted = hoisted_name(host, name).lower()
        made = sorted(m for m in hoisted if m.rstrip("_") == wanted.rstrip("_")
                      and m.startswith(wanted))
        if not made:
            raise AdfortError(f"internal error: the step routine of the checkpointed loop "
                              f"of '{host}' was not made; please report this with the input",
                              spec.place)
        names[made[0]] = spec
    for loop in tree.walk((Loop, WhileLoop)):
        body = loop.loop_body.children
        if len(body) == 1 and isinstance(body[0], Call) and \
                body[0].routine.name.lower() in names:
            spec = names[body[0].routine.name.lower()]
            loop.adfort_checkpoint = spec
            tree.adfort_checkpoint_steps[body[0].routine.name.lower()] = spec
    for name, spec in names.items():
        if name not in tree.adfort_checkpoint_steps:
            raise AdfortError(f"internal error: the checkpointed loop calling '{name}' was "
                              "not found; please report this with the input", spec.place)


class StepsSplit(ADReversalSchedule):
    """`base` with every call to a checkpointed loop's step reversed split
    (the loop's adjoint calls ``step_rec`` and ``step_ret``)."""

    def __init__(self, base, steps):
        self.base, self.steps = base, {s.lower() for s in steps}
        self.name = base.name

    def is_split(self, caller, callee):
        return callee.lower() in self.steps or self.base.is_split(caller, callee)

    def __repr__(self):
        return f"StepsSplit({self.base!r}, {sorted(self.steps)})"


def with_checkpoint_steps(schedule, trees):
    """`schedule`, its links to the step routines of `trees` split."""
    steps = set()
    for tree in trees:
        steps |= set(getattr(tree, "adfort_checkpoint_steps", {}))
    return StepsSplit(schedule, steps) if steps else schedule


def with_schedule_module(text, routine):
    """`text` (generated Fortran for `routine`) preceded by the module of
    checkpointing schedules when its code uses it.  The module is named
    after the routine (``<routine>_checkpointing``), so that the outputs
    of several runs link together."""
    from adfort.checkpointing import FORTRAN_MODULE
    if "use adfort_checkpointing" not in text.lower():
        return text
    return using_schedule_module(FORTRAN_MODULE, routine) + "\n" + \
        using_schedule_module(text, routine)


def using_schedule_module(text, routine):
    """`text` using the checkpointing schedules' module under its name for
    `routine`, without defining it: a Hessian-vector product's code uses
    the module written into the adjoint it is compiled with."""
    return re.sub(r"\badfort_checkpointing\b", naming.checkpoint_module(routine), text,
                  flags=re.IGNORECASE)
