"""Writing a reducible control-flow graph as structured code.

Follows the dominator tree (see :mod:`adfort.controlflow`): a node with
several incoming forward edges, or the exit of a loop, is written after
the code of the node dominating it, so that jumps to it become falling
through, ``EXIT``, or a flag testing the code in between.  The result is
a small tree of :class:`If`, :class:`Select`, :class:`Loop`, :class:`Exit`,
:class:`Cycle` and :class:`Simple` statements, tidied for reading.
"""

import dataclasses
import re
from typing import List, Optional

from adfort import naming
from adfort.errors import AdfortError
from adfort.statements import code_outside_strings


@dataclasses.dataclass
class Simple:
    text: str
    line: Optional[int]


@dataclasses.dataclass
class If:
    cond: str
    then: List
    other: List
    line: Optional[int]


@dataclasses.dataclass
class Select:
    expr: str
    arms: List          # [(selector text, body)]
    default: Optional[List]
    line: Optional[int]


@dataclasses.dataclass
class Loop:
    header: Optional[str]   # "DO i = 1, n", "DO WHILE (c)" or None: DO … END DO
    body: List
    line: Optional[int]


@dataclasses.dataclass
class Exit:
    line: Optional[int]


@dataclasses.dataclass
class Cycle:
    line: Optional[int]


class _Writer:
    def __init__(self, graph, analysis, names):
        self.graph = graph
        self.a = analysis
        self.names = names
        self.children = {n: [] for n in analysis.order}
        self.placed_out = set()
        for node in analysis.order:
            if node is graph.entry:
                continue
            dom = analysis.idom[node]
            leaving = [h for h in analysis.headers
                       if dom in analysis.regions[h] and node not in analysis.regions[h]]
            if leaving:
                parent = max(leaving, key=lambda h: len(analysis.regions[h]))
                self.placed_out.add(node)
            else:
                parent = dom
            self.children[parent].append(node)
        self.forward_in = {n: 0 for n in analysis.order}
        for node in analysis.order:
            for edge in node.edges():
                if not analysis.is_back(edge):
                    self.forward_in[edge.target] += 1
        self.guards = {}      # follower node -> skip flags testing its code
        self.skips = {}       # target node -> its skip flag
        self.skip_names = []

    def follower(self, node):
        return node in self.placed_out or self.forward_in[node] > 1

    def tree(self, node, ctx):
        kids = self.children[node]
        if node in self.a.regions:
            region = self.a.regions[node]
            exits = sorted([k for k in kids if k not in region], key=self.a.rpo.get)
            inner = sorted([k for k in kids if k in region and self.follower(k)],
                           key=self.a.rpo.get)

            def loop(c):
                body = self.followers(lambda c2: self.code(node, c2), inner,
                                      [("loop", node)] + c)
                header = node.term[1] if node.term[0] == "do" else None
                return [Loop(header, body, node.line)]
            return self.followers(loop, exits, ctx)
        merges = sorted([k for k in kids if self.follower(k)], key=self.a.rpo.get)
        return self.followers(lambda c: self.code(node, c), merges, ctx)

    def followers(self, inner, nodes, ctx):
        if not nodes:
            return inner(ctx)
        last = nodes[-1]
        body = self.followers(inner, nodes[:-1], [("block", last)] + ctx)
        code = self.tree(last, ctx)
        if last in self.skips and last is not self.graph.exit:
            code = [Simple(f"{self.skips[last]} = .false.", last.line)] + code
        guards = self.guards.get(last)
        if guards and code:
            test = " .or. ".join(sorted(guards))
            code = [If(f".not. ({test})" if len(guards) > 1 else f".not. {test}",
                       code, [], last.line)]
        return body + code

    def code(self, node, ctx):
        out = [Simple(text, line) for text, line in node.stmts]
        term = node.term
        kind = term[0]
        if kind == "goto":
            out += self.branch(node, term[1], ctx)
        elif kind == "if":
            out.append(If(term[1], self.branch(node, term[2], ctx),
                          self.branch(node, term[3], ctx), term[2].line))
        elif kind == "select":
            arms = [(sel, self.branch(node, edge, ctx)) for sel, edge in term[2]]
            default = self.branch(node, term[3], ctx) if term[3] else None
            first = term[3] if term[3] else term[2][0][1]
            out.append(Select(term[1], arms, default, first.line))
        elif kind == "do":
            out += self.branch(node, term[2], ctx)
        return out

    def branch(self, source, edge, ctx):
        out = [Simple(f"{flag} = .{'true' if value else 'false'}.", edge.line)
               for flag, value in edge.actions]
        target = edge.target
        if self.a.is_back(edge):
            index = ctx.index(("loop", target))
            if any(f[0] == "loop" for f in ctx[:index]):
                raise self._internal(edge)
            if index > 0:
                out.append(Cycle(edge.line))
            return out
        if not self.follower(target):
            return out + self.tree(target, ctx)
        index = ctx.index(("block", target))
        between = ctx[:index]
        loops = [i for i, f in enumerate(between) if f[0] == "loop"]
        if not between:
            return out
        if loops:
            if loops == [index - 1]:
                return out + [Exit(edge.line)]
            raise self._internal(edge)
        flag = self._skip(target)
        for frame in between:
            self.guards.setdefault(frame[1], set()).add(flag)
        return out + [Simple(f"{flag} = .true.", edge.line)]

    def _skip(self, target):
        if target not in self.skips:
            tag = target.label or str(len(self.skips) + 1)
            if target is self.graph.exit:
                tag = "end"
            name = naming.unique_name(naming.skip_flag(tag),
                                      self.names | set(self.graph.flag_names)
                                      | set(self.skip_names))
            self.skips[target] = name
            self.skip_names.append(name)
        return self.skips[target]

    def _internal(self, edge):
        return AdfortError("adfort cannot restructure this jump (a case its control-flow "
                           "rewriting does not handle): please report it, and rewrite the "
                           "jump as IF blocks and loops meanwhile", self.graph.where(edge.line))


def structure(graph, analysis, names):
    """Structured statements for `graph` (loops already single-exit).

    :returns: (statements, names of the flags used).
    """
    writer = _Writer(graph, analysis, names)
    body = tidy(writer.tree(graph.entry, []))
    flags = list(graph.flag_names) + writer.skip_names
    tested = _tested_names(body)
    unused = {f for f in flags if f.lower() not in tested}
    if unused:
        body = tidy(_without_assignments(body, unused))
    return body, [f for f in flags if f not in unused]


def _tested_names(body):
    """Lower-case names read by the conditions, headers and selectors of `body`."""
    found = set()
    for stmt in body:
        texts = []
        if isinstance(stmt, If):
            texts, inner = [stmt.cond], [stmt.then, stmt.other]
        elif isinstance(stmt, Select):
            texts, inner = [stmt.expr], [b for _, b in stmt.arms] + [stmt.default or []]
        elif isinstance(stmt, Loop):
            texts, inner = [stmt.header or ""], [stmt.body]
        else:
            inner = []
        for text in texts:
            found |= {w.lower() for w in re.findall(r"[a-z_]\w*", code_outside_strings(text),
                                                   re.I)}
        for block in inner:
            found |= _tested_names(block)
    return found


def _without_assignments(body, flags):
    """`body` without the assignments to `flags` (set but never tested)."""
    out = []
    for stmt in body:
        if isinstance(stmt, Simple) and stmt.text.split("=")[0].strip() in flags:
            continue
        if isinstance(stmt, If):
            stmt = If(stmt.cond, _without_assignments(stmt.then, flags),
                      _without_assignments(stmt.other, flags), stmt.line)
        elif isinstance(stmt, Select):
            stmt = Select(stmt.expr, [(s, _without_assignments(b, flags)) for s, b in stmt.arms],
                          _without_assignments(stmt.default, flags)
                          if stmt.default is not None else None, stmt.line)
        elif isinstance(stmt, Loop):
            stmt = Loop(stmt.header, _without_assignments(stmt.body, flags), stmt.line)
        out.append(stmt)
    return out


# --- tidying -------------------------------------------------------------

def _ends_in_jump(body):
    return bool(body) and isinstance(body[-1], (Exit, Cycle))


def tidy(body):
    """Readable form of structured statements: no empty branches, IF (c)
    EXIT rather than IF … ELSE, DO WHILE for loops testing first."""
    out = []
    for stmt in body:
        if isinstance(stmt, If):
            then, other = tidy(stmt.then), tidy(stmt.other)
            if not then and not other:
                continue
            cond = stmt.cond
            if not then:
                cond, then, other = negate(cond), other, []
            if other and _ends_in_jump(then):
                out.append(If(cond, then, [], stmt.line))
                out.extend(other)
                continue
            if other and _ends_in_jump(other) and not _ends_in_jump(then):
                out.append(If(negate(cond), other, [], stmt.line))
                out.extend(then)
                continue
            out.append(If(cond, then, other, stmt.line))
        elif isinstance(stmt, Select):
            arms = [(sel, tidy(b)) for sel, b in stmt.arms]
            default = tidy(stmt.default) if stmt.default is not None else None
            out.append(Select(stmt.expr, arms, default or None, stmt.line))
        elif isinstance(stmt, Loop):
            inner = tidy(stmt.body)
            header = stmt.header
            if header is None and inner and isinstance(inner[0], If) and not inner[0].other \
                    and len(inner[0].then) == 1 and isinstance(inner[0].then[0], Exit):
                header = f"DO WHILE ({negate(inner[0].cond)})"
                inner = inner[1:]
            out.append(Loop(header, inner, stmt.line))
        else:
            out.append(stmt)
            if isinstance(stmt, (Exit, Cycle)):
                break  # what follows never runs
    return out


_RELATIONS = [("==", "/="), ("/=", "=="), ("<=", ">"), (">=", "<"), ("<", ">="), (">", "<="),
              (".eq.", ".ne."), (".ne.", ".eq."), (".le.", ".gt."), (".ge.", ".lt."),
              (".lt.", ".ge."), (".gt.", ".le.")]


def negate(cond):
    """The negation of a logical expression, as simple as can be told."""
    cond = cond.strip()
    masked = code_outside_strings(cond).lower()
    if re.match(r"^\.not\.\s*\(", masked):
        start = masked.index("(")
        inner = cond[start:]
        if _whole_parenthesised(inner):
            return inner[1:-1].strip()
    if re.match(r"^\.not\.\s*[a-z]\w*$", masked):
        return cond[5:].strip()
    if re.match(r"^[a-z]\w*$", masked):
        return f".not. {cond}"
    if _whole_parenthesised(cond):
        return negate(cond[1:-1])
    top = _top_level(masked)
    if not re.search(r"\.(and|or|eqv|neqv|not)\.", top):
        for op, inverse in _RELATIONS:
            position = top.find(op)
            if position >= 0 and top.count(op) == 1 and not _other_relation(top, op):
                return cond[:position].rstrip() + f" {inverse} " + cond[position + len(op):].lstrip()
    return f".not. ({cond})"


def _other_relation(top, op):
    rest = top.replace(op, " " * len(op))
    rest = rest.replace("=>", "  ")
    return bool(re.search(r"==|/=|<|>|\.(eq|ne|lt|le|gt|ge)\.", rest))


def _top_level(masked):
    """`masked` with everything inside parentheses blanked."""
    out, depth = [], 0
    for char in masked:
        if char == "(":
            depth += 1
            out.append(" ")
        elif char == ")":
            depth -= 1
            out.append(" ")
        else:
            out.append(char if depth == 0 else " ")
    return "".join(out)


def _whole_parenthesised(text):
    from adfort.statements import matching_paren
    return text.startswith("(") and matching_paren(text, 0) == len(text) - 1
