"""Structuring the control flow of a program unit: GO TO, arithmetic IF,
computed GO TO, RETURN and named EXIT/CYCLE become IF blocks, DO loops,
DO WHILE loops and unnamed EXIT/CYCLE, which PSyIR represents.

The executable statements of a unit become a control-flow graph of basic
blocks (DO loops stay loop headers), built here.  The graph must be
reducible (:mod:`adfort.flowanalysis`).  Every
loop is given a single exit (several exit targets go through one
*dispatch* point after the loop that tests logical flags set at the
jumps); the graph is then written as structured code following its
dominator tree, in the manner of N. Ramsey, "Beyond Relooper" (ICFP 2022):
a node reached from several places is written after the code that jumps
to it, a jump forward becomes falling through, ``EXIT`` or (only where
code must be skipped that is not in a loop) a flag.
"""

import re

from adfort.errors import AdfortError
from adfort.statements import matching_paren, split_top_level


class Edge:
    """A transfer of control, with flag assignments made on the way.

    :param target: the :class:`Node` jumped to (None until resolved).
    :param int line: the source line of the jump.
    """

    def __init__(self, target=None, line=None):
        self.target = target
        self.line = line
        self.actions = []   # [(flag name, bool)]
        self.known = None   # (flag, value) known to hold when taken

    def set_flag(self, flag, value):
        """Add ``flag = value`` to the edge (dropping what it makes useless)."""
        if self.actions and self.actions[-1][0] == flag:
            self.actions.pop()
        self.actions.append((flag, value))
        if self.actions[-1] == self.known:
            self.actions.pop()


class Node:
    """A basic block: statements (text, line) and how it ends.

    ``term`` is one of ``('goto', edge)``, ``('if', cond, then, else)``,
    ``('select', expr, [(selector, edge)], default)``,
    ``('do', header, body, done)`` (a DO loop's header), ``('end',)`` or
    ``('halt',)`` (after STOP).
    """

    def __init__(self, ident, line=None):
        self.id = ident
        self.stmts = []
        self.term = None
        self.line = line
        self.label = None
        self.syntactic = None   # DO header: the nodes of its body
        self.after = None       # DO exit / dispatch node: the loop header it follows
        self.done = None        # DO header: its exit node

    def edges(self):
        """The outgoing edges, in order."""
        term = self.term or ("end",)
        kind = term[0]
        if kind == "goto":
            return [term[1]]
        if kind == "if":
            return [term[2], term[3]]
        if kind == "select":
            return [e for _, e in term[2]] + ([term[3]] if term[3] else [])
        if kind == "do":
            return [term[2], term[3]]
        return []

    def __repr__(self):
        return f"Node({self.id}, label={self.label})"


# --- statement kinds ---------------------------------------------------

_NAME = r"(?:(?P<name>[a-z]\w*)\s*:(?!:)\s*)?"
_DO = re.compile(r"^" + _NAME + r"do(?=\s*$|\s*\d|\s*,|\s+while\b|\s*while\s*\(|\s+[a-z]\w*\s*=)"
                 r"\s*(?P<label>\d+)?\s*,?\s*(?P<rest>.*)$", re.I)
_IF_THEN = re.compile(r"^" + _NAME + r"if\s*\(", re.I)
_ELSE_IF = re.compile(r"^else\s*if\s*\(", re.I)
_ELSE = re.compile(r"^else(?:\s+[a-z]\w*)?\s*$", re.I)
_END_IF = re.compile(r"^end\s*if\b", re.I)
_END_DO = re.compile(r"^end\s*do\b", re.I)
_SELECT = re.compile(r"^" + _NAME + r"select\s*case\s*\(", re.I)
_CASE = re.compile(r"^case\s*(?P<sel>\(.*\)|default)\s*(?:[a-z]\w*)?\s*$", re.I)
_END_SELECT = re.compile(r"^end\s*select\b", re.I)
_GOTO = re.compile(r"^go\s*to\s*(?P<label>\d+)\s*$", re.I)
_COMPUTED = re.compile(r"^go\s*to\s*\(", re.I)
# (Not an assignment to a variable GOTOX or ASSIGN10TOK: blanks do not
# count in fixed form.)
_ASSIGNED = re.compile(r"^(go\s*to\s*[a-z]\w*|assign\s*\d+\s*to\s*[a-z])(?![^=]*=(?![=>]))", re.I)
_ASSIGN = re.compile(r"^assign\s*(?P<label>\d+)\s*to\s*(?P<var>[a-z]\w*)\s*$", re.I)
_ASSIGNED_GOTO = re.compile(r"^go\s*to\s*(?P<var>[a-z]\w*)\s*(?:,?\s*\((?P<labels>[\d\s,]*)\))?\s*$",
                            re.I)
_RETURN = re.compile(r"^return\b\s*(?P<alt>.*)$", re.I)
_STOP = re.compile(r"^(error\s*)?stop\b", re.I)
# PAUSE (deleted in F95, in every Numerical Recipes routine): its message is
# written and a line read before going on, as gfortran's run time does.
_PAUSE = re.compile(r"^pause\b\s*(?P<code>.*)$", re.I)
_EXIT = re.compile(r"^(?P<kind>exit|cycle)\b\s*(?P<name>[a-z]\w*)?\s*$", re.I)
_CONTINUE = re.compile(r"^continue\s*$", re.I)
_FORMAT = re.compile(r"^format\s*\(", re.I)
_DATA = re.compile(r"^data\b\s*[a-z(/]", re.I)
_ENTRY = re.compile(r"^entry\b\s*[a-z]", re.I)
_ARITH_LABELS = re.compile(r"^\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*$")
_IO_BRANCH = re.compile(r"^(read|write|open|close|inquire|backspace|rewind|endfile|wait|flush)"
                        r"\s*\(.*\b(err|end|eor)\s*=\s*\d+", re.I)


def condition_and_rest(text):
    """For ``IF (c) rest`` (or ``ELSE IF (c) THEN``): (c, rest)."""
    start = text.index("(")
    end = matching_paren(text, start)
    if end < 0:
        return None, None
    return text[start + 1:end].strip(), text[end + 1:].strip()


def jump_labels(text):
    """Labels a statement (or a logical IF's statement) can jump to
    (leading zeros dropped, as in statement labels)."""
    return [_normal_label(label) for label in _jump_labels(text)]


def _normal_label(label):
    label = str(label).strip()
    return str(int(label)) if label.isdigit() else label


def _jump_labels(text):
    if is_assignment(text):
        return []
    if _IF_THEN.match(text) and not _ELSE_IF.match(text):
        cond, rest = condition_and_rest(text)
        if rest is None:
            return []
        if _ARITH_LABELS.match(rest):
            return list(_ARITH_LABELS.match(rest).groups())
        if rest and not re.match(r"^then\s*$", rest, re.I):
            return _jump_labels(rest)
        return []
    match = _GOTO.match(text)
    if match:
        return [match.group("label")]
    match = _ASSIGN.match(text)
    if match:
        return [match.group("label")]
    match = _ASSIGNED_GOTO.match(text)
    if match and match.group("labels"):
        return [l.strip() for l in match.group("labels").split(",") if l.strip()]
    if _COMPUTED.match(text):
        start = text.index("(")
        end = matching_paren(text, start)
        return [l.strip() for l in text[start + 1:end].split(",")]
    return []


def is_assignment(text):
    """Whether statement `text` assigns a variable, an array element or a
    component (``DATA(1) = x``, ``RETURN = 0``, ``s%if = 1``), whatever its
    name: keywords are not reserved in Fortran."""
    match = re.match(r"[a-z]\w*\s*", text, re.I)
    if not match:
        return False
    at = match.end()
    while at < len(text) and text[at] in "(%":
        if text[at] == "(":
            close = matching_paren(text, at)
            if close < 0:
                return False
            at = close + 1
        else:
            component = re.match(r"%\s*[a-z]\w*", text[at:], re.I)
            if not component:
                return False
            at += component.end()
        while at < len(text) and text[at] == " ":
            at += 1
    if text[at:at + 1] != "=" or text[at + 1:at + 2] in ("=", ">"):
        return False
    # (A comma after the = makes it a DO statement: DO10I=1,N.)
    return len(split_top_level(text[at + 1:])) == 1


def is_control(text):
    """Whether a statement is one only the restructuring handles: a jump,
    RETURN, an arithmetic IF, ASSIGN, ENTRY, a named EXIT or CYCLE, a named
    DO, or a logical IF holding one of them."""
    if is_assignment(text):
        return False
    if _IF_THEN.match(text) and not _ELSE_IF.match(text):
        cond, rest = condition_and_rest(text)
        if rest is None:
            return False
        if _ARITH_LABELS.match(rest):
            return True
        if rest and not re.match(r"^then\s*$", rest, re.I):
            return is_control(rest)
        return False
    if _GOTO.match(text) or _COMPUTED.match(text) or _ASSIGNED.match(text):
        return True
    if _RETURN.match(text) or _ENTRY.match(text) or _PAUSE.match(text):
        return True
    match = _EXIT.match(text)
    if match and match.group("name"):
        return True
    match = _DO.match(text)
    return bool(match and match.group("name"))


# --- building the graph ----------------------------------------------

class Graph:
    """The control-flow graph of one unit's executable part."""

    def __init__(self, path):
        self.path = path
        self.nodes = []
        self.entry = None
        self.exit = None
        self.formats = []     # FORMAT statements (Statement), kept as they are
        self.data = []        # DATA statements met among executable ones
        self.flags = {}       # target node -> flag name
        self.flag_names = []

    def new(self, line=None):
        node = Node(len(self.nodes), line)
        self.nodes.append(node)
        return node

    def where(self, line):
        return f"{self.path}:{line}" if line else self.path


class _Builder:
    """Turns a list of executable statements into a :class:`Graph`."""

    def __init__(self, statements, path):
        self.graph = Graph(path)
        self.statements = statements
        self.targets = set()
        for stmt in statements:
            self.targets.update(jump_labels(stmt.text))
        # Labels ASSIGNed to each variable (those an assigned GO TO without a
        # list may reach), and the labels of executable statements.
        self.assigned = {}    # variable -> labels ASSIGNed to it
        for match in map(_ASSIGN.match, (s.text for s in statements)):
            if match:
                self.assigned.setdefault(match.group("var").lower(), set()).add(
                    match.group("label"))
        self.executable_labels = {s.label for s in statements
                                  if s.label and not _FORMAT.match(s.text)}
        self.labels = {}
        self.pending = []     # (edge, label)
        self.stack = []       # open constructs
        self.current = None

    def error(self, message, line):
        raise AdfortError(message, self.graph.where(line))

    def node(self, line):
        """The node statements go to (a new one after a jump: dead code)."""
        if self.current is None:
            self.current = self.graph.new(line)
        return self.current

    def end_with(self, term):
        self.node(None).term = term
        self.current = None

    def goto(self, target, line):
        edge = Edge(target, line)
        self.end_with(("goto", edge))
        return edge

    def start(self, line, label=None):
        """Start a new node (the target of jumps), continuing the current one."""
        new = self.graph.new(line)
        new.label = label
        if self.current is not None:
            self.current.term = ("goto", Edge(new, line))
        self.current = new
        return new

    def jump_to_label(self, label, line):
        label = _normal_label(label)    # (GO TO 010 is GO TO 10)
        edge = Edge(None, line)
        self.pending.append((edge, label))
        return edge

    def build(self):
        graph = self.graph
        graph.entry = self.start(self.statements[0].line if self.statements else None)
        graph.exit = Node(-1)
        for stmt in self.statements:
            self.statement(stmt)
        if self.stack:
            self.error("construct not closed before the end of the routine", self.stack[-1]["line"])
        graph.exit.id = len(graph.nodes)
        graph.nodes.append(graph.exit)
        if self.current is not None:
            self.current.term = ("goto", Edge(graph.exit, None))
        graph.exit.term = ("end",)
        for edge, label in self.pending:
            if label not in self.labels:
                self.error(f"jump to label {label}, which no executable statement of this "
                           "routine has", edge.line)
            edge.target = self.labels[label]
        return graph

    # each kind of statement

    def statement(self, stmt):
        text, line = stmt.text, stmt.line
        if is_assignment(text):
            # To a variable named like a keyword (Numerical Recipes' array
            # DATA: DATA(1) = ... was taken for a DATA statement and moved
            # to the specification part).
            if stmt.label and stmt.label in self.targets:
                if stmt.label in self.labels:
                    self.error(f"label {stmt.label} is defined twice", line)
                self.labels[stmt.label] = self.start(line, stmt.label)
            self.node(line).stmts.append((text, line))
            if stmt.label:
                self.close_labelled_loops(stmt.label, line)
            return
        if _FORMAT.match(text):
            self.graph.formats.append(stmt)
            return
        if _DATA.match(text):
            self.graph.data.append(stmt)
            return
        if stmt.label and stmt.label in self.targets:
            if stmt.label in self.labels:
                self.error(f"label {stmt.label} is defined twice", line)
            self.labels[stmt.label] = self.start(line, stmt.label)
        self.executable(stmt, text, line)
        if stmt.label:
            self.close_labelled_loops(stmt.label, line)

    def executable(self, stmt, text, line):
        if _ENTRY.match(text):
            self.error("ENTRY statements are not supported: make each entry a routine of "
                       "its own", line)
        match = _ASSIGN.match(text)
        if match:
            # The variable holds the label's number; the assigned GO TO
            # branches on it (F77's ASSIGN, deleted in F95).
            label = _normal_label(match.group("label"))
            if label not in self.executable_labels:
                self.error(f"ASSIGN of label {label}, which is not the label of "
                           "an executable statement of this routine (a FORMAT label?): "
                           "adfort supports ASSIGN for assigned GO TO only", line)
            self.node(line).stmts.append((f"{match.group('var')} = {label}", line))
            return None
        match = _ASSIGNED_GOTO.match(text)
        if match:
            return self.assigned_goto(match, line)
        if _ASSIGNED.match(text):
            self.error("cannot read this ASSIGN or assigned GO TO statement", line)
        if _IO_BRANCH.match(text):
            self.error("ERR=, END= or EOR= branches of an I/O statement in a routine whose "
                       "jumps adfort restructures are not supported: use IOSTAT= and an IF",
                       line)
        match = _DO.match(text)
        if match:
            return self.do(match, text, line)
        if _END_DO.match(text):
            if stmt.label and self.stack and self.stack[-1]["kind"] == "do" and \
                    self.stack[-1]["term"] == stmt.label:
                # ``20 END DO`` ending ``DO 20 …``: its label closes the
                # loop, as a CONTINUE's would.
                self.node(line)
                return None
            if not self.stack or self.stack[-1]["kind"] != "do" or self.stack[-1]["term"]:
                self.error("END DO without a matching DO", line)
            return self.close_loop(line)
        if _SELECT.match(text):
            return self.select(text, line)
        match = _CASE.match(text)
        if match:
            return self.case(match.group("sel"), line)
        if _END_SELECT.match(text):
            return self.end_select(line)
        if _ELSE_IF.match(text):
            cond, _ = condition_and_rest(text[4:].lstrip())
            return self.else_if(cond, line)
        if _ELSE.match(text):
            return self.else_(line)
        if _END_IF.match(text):
            return self.end_if(line)
        if _IF_THEN.match(text):
            cond, rest = condition_and_rest(text)
            if rest is None:
                self.error("cannot read this IF statement", line)
            if re.match(r"^then\s*$", rest, re.I):
                return self.if_then(cond, line, _IF_THEN.match(text).group("name"))
            labels = _ARITH_LABELS.match(rest)
            if labels:
                return self.arithmetic_if(cond, labels.groups(), line)
            if is_control(rest) or _STOP.match(rest) or _EXIT.match(rest):
                then = self.graph.new(line)
                following = self.graph.new(line)
                self.end_with(("if", cond, Edge(then, line), Edge(following, line)))
                self.current = then
                self.executable(stmt, rest, line)
                if self.current is not None:
                    self.current.term = ("goto", Edge(following, line))
                self.current = following
                return None
        self.simple(text, line)
        return None

    def simple(self, text, line):
        if _GOTO.match(text):
            self.end_with(("goto", self.jump_to_label(_GOTO.match(text).group("label"), line)))
            return
        if _COMPUTED.match(text):
            return self.computed_goto(text, line)
        match = _RETURN.match(text)
        if match:
            if match.group("alt").strip():
                self.error("alternate return ('RETURN n') is not supported: return an integer "
                           "code in an argument and branch on it in the caller", line)
            self.goto(self.graph.exit, line)
            return
        match = _EXIT.match(text)
        if match:
            return self.exit_or_cycle(match, line)
        if _STOP.match(text):
            self.node(line).stmts.append((text, line))
            self.end_with(("halt",))
            return
        match = _PAUSE.match(text)
        if match:
            code = match.group("code").strip()
            message = f"'PAUSE', {code}" if code else "'PAUSE'"
            self.node(line).stmts.extend([(f"WRITE (*, *) {message}", line),
                                          ("READ (*, *)", line)])
            return
        if _CONTINUE.match(text):
            self.node(line)
            return
        self.node(line).stmts.append((text, line))

    def computed_goto(self, text, line):
        start = text.index("(")
        end = matching_paren(text, start)
        labels = [l.strip() for l in text[start + 1:end].split(",")]
        expr = text[end + 1:].strip().lstrip(",").strip()
        if not expr:
            self.error("computed GO TO without an index expression", line)
        cases = {}
        for position, label in enumerate(labels, start=1):
            cases.setdefault(label, []).append(str(position))
        following = self.graph.new(line)
        arms = [("(" + ", ".join(positions) + ")", self.jump_to_label(label, line))
                for label, positions in cases.items()]
        self.end_with(("select", expr, arms, Edge(following, line)))
        self.current = following

    def assigned_goto(self, match, line):
        """``GO TO v [, (l1, l2, …)]``: a branch on the label number an
        ASSIGN statement put in `v` (the labels listed, or every label the
        routine ASSIGNs)."""
        labels = [l.strip() for l in (match.group("labels") or "").split(",") if l.strip()]
        labels = labels or sorted(self.assigned.get(match.group("var").lower(), ()), key=int)
        if not labels:
            self.error(f"assigned GO TO on '{match.group('var')}' with no ASSIGN statement "
                       "in the routine", line)
        arms = [(f"({label})", self.jump_to_label(label, line))
                for label in dict.fromkeys(labels)]
        # A value no arm names is an error in Fortran; like a computed GO TO
        # out of range, it goes on with the next statement.
        following = self.graph.new(line)
        self.end_with(("select", match.group("var"), arms, Edge(following, line)))
        self.current = following

    def arithmetic_if(self, expr, labels, line):
        neg, zero, pos = labels
        e = expr
        if neg == zero == pos:
            self.end_with(("goto", self.jump_to_label(neg, line)))
        elif neg == zero:
            self.end_with(("if", f"{e} <= 0", self.jump_to_label(neg, line),
                           self.jump_to_label(pos, line)))
        elif zero == pos:
            self.end_with(("if", f"{e} < 0", self.jump_to_label(neg, line),
                           self.jump_to_label(zero, line)))
        elif neg == pos:
            self.end_with(("if", f"{e} == 0", self.jump_to_label(zero, line),
                           self.jump_to_label(neg, line)))
        else:
            second = self.graph.new(line)
            self.end_with(("if", f"{e} < 0", self.jump_to_label(neg, line), Edge(second, line)))
            second.term = ("if", f"{e} == 0", self.jump_to_label(zero, line),
                           self.jump_to_label(pos, line))

    def if_then(self, cond, line, name=None):
        then = self.graph.new(line)
        test = Edge(None, line)
        self.end_with(("if", cond, Edge(then, line), test))
        self.stack.append({"kind": "if", "line": line, "ends": [], "test": test,
                           "else": False, "name": name})
        self.current = then

    def _open(self, kind, line):
        if not self.stack or self.stack[-1]["kind"] != kind:
            self.error(f"this statement does not belong to an open {kind.upper()} construct",
                       line)
        return self.stack[-1]

    def else_if(self, cond, line):
        frame = self._open("if", line)
        if self.current is not None:
            frame["ends"].append(self.current)
        test = self.graph.new(line)
        frame["test"].target = test
        then = self.graph.new(line)
        frame["test"] = Edge(None, line)
        test.term = ("if", cond, Edge(then, line), frame["test"])
        self.current = then

    def else_(self, line):
        frame = self._open("if", line)
        if self.current is not None:
            frame["ends"].append(self.current)
        other = self.graph.new(line)
        frame["test"].target = other
        frame["test"] = None
        self.current = other

    def end_if(self, line):
        frame = self._open("if", line)
        self.stack.pop()
        if self.current is not None:
            frame["ends"].append(self.current)
        join = self.graph.new(line)
        for node in frame["ends"]:
            node.term = ("goto", Edge(join, line))
        if frame["test"] is not None:
            frame["test"].target = join
        self.current = join

    def select(self, text, line):
        start = text.index("(")
        end = matching_paren(text, start)
        expr = text[start + 1:end].strip()
        arms = []
        default = Edge(None, line)
        self.end_with(("select", expr, arms, default))
        self.stack.append({"kind": "select", "line": line, "ends": [], "arms": arms,
                           "default": default, "has_default": False, "started": False})

    def case(self, selector, line):
        frame = self._open("select", line)
        if frame["started"] and self.current is not None:
            frame["ends"].append(self.current)
        frame["started"] = True
        body = self.graph.new(line)
        if selector.lower() == "default":
            frame["default"].target = body
            frame["has_default"] = True
        else:
            frame["arms"].append((selector, Edge(body, line)))
        self.current = body

    def end_select(self, line):
        frame = self._open("select", line)
        self.stack.pop()
        if frame["started"] and self.current is not None:
            frame["ends"].append(self.current)
        join = self.graph.new(line)
        for node in frame["ends"]:
            node.term = ("goto", Edge(join, line))
        if not frame["has_default"]:
            frame["default"].target = join
        self.current = join

    def do(self, match, text, line):
        rest = match.group("rest").strip()
        if re.match(r"^while\b", rest, re.I):
            header = "DO WHILE " + rest[5:].strip()
        elif rest:
            header = "DO " + rest
        else:
            header = "DO"
        start = self.node(line)
        if start.label is not None and not start.stmts:
            # ``20 DO 30 …`` with a GO TO 20: a jump to the DO statement
            # starts the loop again from its first iteration, so it must
            # reach the header through this node, not the header itself
            # (which only the loop's own iterations go back to).
            start.keep = True
        head = self.start(line)
        body = self.graph.new(line)
        done = self.graph.new(line)
        done.after = head
        head.done = done
        head.term = ("do", header, Edge(body, line), Edge(done, line))
        self.stack.append({"kind": "do", "line": line, "head": head, "done": done,
                           "name": (match.group("name") or "").lower() or None,
                           "term": match.group("label") and str(int(match.group("label"))),
                           "first": body.id})
        self.current = body

    def close_loop(self, line):
        frame = self.stack.pop()
        head = frame["head"]
        if self.current is not None:
            self.current.term = ("goto", Edge(head, line))
        head.syntactic = {n for n in self.graph.nodes[frame["first"]:] if n is not frame["done"]}
        self.current = frame["done"]

    def close_labelled_loops(self, label, line):
        while self.stack and self.stack[-1]["kind"] == "do" and self.stack[-1]["term"] == label:
            self.close_loop(line)
        if any(f["kind"] == "do" and f["term"] == label for f in self.stack):
            self.error(f"DO loop ending at label {label} ends inside another construct", line)

    def exit_or_cycle(self, match, line):
        name = (match.group("name") or "").lower() or None
        named = [f for f in self.stack if (f.get("name") or "").lower() == name] if name else []
        if named and named[-1]["kind"] == "if" and match.group("kind").lower() == "exit":
            # Fortran 2008: EXIT leaves the named IF construct, to its END IF.
            named[-1]["ends"].append(self.node(line))
            self.current = None
            return
        loops = [f for f in self.stack if f["kind"] == "do"]
        if name:
            loops = [f for f in loops if f["name"] == name]
        if not loops:
            self.error(f"{match.group('kind').upper()} outside a DO loop"
                       + (f" named '{name}' (adfort follows an EXIT out of DO loops and "
                          "named IF constructs only: out of a BLOCK construct, put the rest "
                          "of the block under an IF)" if name else ""), line)
        frame = loops[-1]
        if match.group("kind").lower() == "exit":
            self.goto(frame["done"], line)
        else:
            self.goto(frame["head"], line)


def build_graph(statements, path):
    """The control-flow graph of a unit's executable statements.

    :param statements: :class:`adfort.statements.Statement` list.
    :raises AdfortError: for constructs that cannot be restructured.
    """
    graph = _Builder(statements, path).build()
    _simplify(graph)
    return graph


# --- analysis ------------------------------------------------------------

def _reachable(graph):
    seen, stack = {graph.entry}, [graph.entry]
    while stack:
        node = stack.pop()
        for edge in node.edges():
            if edge.target not in seen:
                seen.add(edge.target)
                stack.append(edge.target)
    return seen


def _simplify(graph):
    """Drop unreachable nodes and empty pass-through nodes."""
    for _ in range(len(graph.nodes) + 1):
        changed = False
        for node in graph.nodes:
            _merge_arms(node)
        live = _reachable(graph)
        graph.nodes = [n for n in graph.nodes if n in live]
        for node in graph.nodes:
            for edge in node.edges():
                target = edge.target
                if (target is not graph.exit and target is not node and not target.stmts
                        and target.term[0] == "goto" and target.done is None
                        and target.after is None and not target.term[1].actions
                        and target.term[1].target is not target
                        and not getattr(target, "keep", False)):
                    edge.target = target.term[1].target
                    changed = True
        if not changed:
            break
    live = _reachable(graph)
    graph.nodes = [n for n in graph.nodes if n in live]
    if graph.exit not in live:
        graph.nodes.append(graph.exit)


def _merge_arms(node):
    """One arm per target in a SELECT; arms going where the default goes
    dropped; a branch with a single target a GO TO."""
    term = node.term
    if term[0] == "if" and term[2].target is term[3].target and not term[2].actions \
            and not term[3].actions:
        node.term = ("goto", term[2])
    if term[0] != "select":
        return
    default = term[3]
    arms = {}
    for selector, edge in term[2]:
        if edge.actions:
            arms[id(edge)] = ([selector], edge)
            continue
        if default is not None and edge.target is default.target and not default.actions:
            continue
        key = id(edge.target)
        if key in arms:
            arms[key][0].append(selector)
        else:
            arms[key] = ([selector], edge)
    merged = [("(" + ", ".join(s.strip()[1:-1] for s in sels) + ")", edge)
              for sels, edge in arms.values()]
    if not merged and default is not None:
        node.term = ("goto", default)
    else:
        node.term = ("select", term[1], merged, default)
