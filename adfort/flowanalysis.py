"""Dominators, loops and single-exit loops of a unit's control-flow graph
(:mod:`adfort.controlflow`).

Loops are DO constructs (their body as written) and the natural loops of
backward jumps; a loop region also holds the loops whose header it holds
and the nodes placed after them.  :func:`single_exits` gives every loop one
exit target, so that leaving it is always a plain ``EXIT``.
"""

from adfort.controlflow import Edge, _reachable
from adfort.errors import AdfortError


class Analysis:
    """Orders, dominators and loops of a graph.

    :raises AdfortError: when the graph is irreducible.
    """

    def __init__(self, graph):
        self.graph = graph
        live = _reachable(graph)
        self.order = self._postorder(graph.entry)[::-1]
        self.rpo = {n: i for i, n in enumerate(self.order)}
        self.preds = {n: [] for n in self.order}
        for node in self.order:
            for edge in node.edges():
                self.preds[edge.target].append((node, edge))
        self.idom = self._dominators()
        self.back = set()
        for node in self.order:
            for edge in node.edges():
                target = edge.target
                if self.rpo[target] <= self.rpo[node]:
                    if not self.dominates(target, node):
                        raise AdfortError(
                            "this jump makes the control flow irreducible (it enters a loop "
                            "elsewhere than at its start): adfort cannot restructure it; "
                            "rewrite the loop so that it is entered at one place only",
                            graph.where(edge.line))
                    self.back.add(id(edge))
        self.regions = self._regions(live)
        self.headers = sorted(self.regions, key=lambda h: len(self.regions[h]))

    def _postorder(self, entry):
        seen, out = {entry}, []
        stack = [(entry, iter(entry.edges()))]
        while stack:
            node, it = stack[-1]
            for edge in it:
                if edge.target not in seen:
                    seen.add(edge.target)
                    stack.append((edge.target, iter(edge.target.edges())))
                    break
            else:
                out.append(node)
                stack.pop()
        return out

    def _dominators(self):
        entry = self.graph.entry
        idom = {entry: entry}
        changed = True
        while changed:
            changed = False
            for node in self.order[1:]:
                preds = [p for p, _ in self.preds[node] if p in idom]
                if not preds:
                    continue
                new = preds[0]
                for other in preds[1:]:
                    new = self._intersect(idom, new, other)
                if idom.get(node) is not new:
                    idom[node] = new
                    changed = True
        return idom

    def _intersect(self, idom, a, b):
        while a is not b:
            while self.rpo[a] > self.rpo[b]:
                a = idom[a]
            while self.rpo[b] > self.rpo[a]:
                b = idom[b]
        return a

    def dominates(self, a, b):
        """Whether node `a` dominates node `b`."""
        while True:
            if b is a:
                return True
            parent = self.idom.get(b)
            if parent is None or parent is b:
                return False
            b = parent

    def is_back(self, edge):
        return id(edge) in self.back

    def _regions(self, live):
        regions = {}
        for node in self.order:
            if node.term and node.term[0] == "do":
                regions[node] = ({n for n in node.syntactic if n in live} | {node})
        latches = {}
        for node in self.order:
            for edge in node.edges():
                if self.is_back(edge) and edge.target not in regions:
                    latches.setdefault(edge.target, []).append(node)
        for head, tails in latches.items():
            body, stack = {head}, list(tails)
            while stack:
                node = stack.pop()
                if node in body:
                    continue
                body.add(node)
                stack.extend(p for p, _ in self.preds[node])
            regions[head] = body
        changed = True
        while changed:
            changed = False
            for head, body in regions.items():
                for other, inner in regions.items():
                    if other is not head and other in body and not inner <= body:
                        body |= inner
                        changed = True
                for node in self.order:
                    if node.after is not None and node.after in body and node.after is not head \
                            and node not in body:
                        body.add(node)
                        changed = True
        for head, body in regions.items():
            if head.term[0] == "do":
                for pred, edge in self.preds[head]:
                    if pred not in body and self.is_back(edge):
                        raise AdfortError("jump into a DO loop from outside it",
                                          self.graph.where(edge.line))
        heads = list(regions)
        for i, a in enumerate(heads):
            for b in heads[i + 1:]:
                ra, rb = regions[a], regions[b]
                if ra & rb and not (ra <= rb or rb <= ra):
                    raise AdfortError(
                        "these loops overlap without one containing the other (irreducible "
                        "control flow): rewrite them as nested loops",
                        self.graph.where(a.line or b.line))
        return regions

    def loops_of(self, node):
        """Headers of the loops holding `node`, innermost first."""
        return [h for h in self.headers if node in self.regions[h]]


# --- one exit per loop -----------------------------------------------

def _flag(graph, target, names):
    if target not in graph.flags:
        from adfort import naming
        if target is graph.exit:
            base = naming.RETURN_FLAG
        elif target.label:
            base = naming.jump_flag(target.label)
        else:
            base = naming.jump_flag(f"{len(graph.flags) + 1}")
        name = naming.unique_name(base, names | set(graph.flag_names))
        graph.flags[target] = name
        graph.flag_names.append(name)
    return graph.flags[target]


def single_exits(graph, names):
    """Give every loop of `graph` one exit target: jumps to other targets
    set a flag and leave through a dispatch node after the loop.

    :param names: lower-case names used in the unit (flags avoid them).
    """
    done = set()
    while True:
        analysis = Analysis(graph)
        todo = [h for h in analysis.headers if h not in done]
        if not todo:
            return analysis
        head = todo[0]
        done.add(head)
        _dispatch(graph, analysis, head, names)


def _dispatch(graph, analysis, head, names):
    region = analysis.regions[head]
    exits = [(node, edge) for node in analysis.order if node in region
             for edge in node.edges() if edge.target not in region]
    targets = []
    for _, edge in exits:
        if edge.target not in targets:
            targets.append(edge.target)
    if not targets:
        return
    if head.term[0] == "do":
        primary = head.done
    else:
        counts = {t: sum(e.target is t for _, e in exits) for t in targets}
        primary = max(targets, key=lambda t: (counts[t], -analysis.rpo[t]))
    outside = any(p not in region for p, _ in analysis.preds[primary])
    if len(targets) == 1 and (head.term[0] == "do" or not outside):
        return
    if head.term[0] == "do":
        # The DO's exit node becomes the dispatch; what it did moves on.
        dispatch = primary
        rest = graph.new(dispatch.line)
        rest.after = head
        rest.stmts, rest.term, rest.label = dispatch.stmts, dispatch.term, dispatch.label
        dispatch.stmts, dispatch.label = [], None
        final = rest
        if primary in graph.flags:  # jumps to the old exit keep their meaning
            graph.flags[rest] = graph.flags.pop(primary)
        for node in graph.nodes:
            for edge in node.edges():
                if edge.target is primary and node not in region:
                    edge.target = rest
    else:
        dispatch = graph.new(head.line)
        dispatch.after = head
        final = primary
    others = [t for t in targets if t is not primary]
    node = dispatch
    for index, target in enumerate(others):
        flag = _flag(graph, target, names)
        taken = Edge(target, head.line)
        taken.known = (flag, True)
        # Reset once taken: the loop may run again, and another loop's
        # dispatch may test the same flag (one flag per target: a jump out
        # of a loop to 120 and a jump back to 120 out of a later loop).
        if target is not graph.exit:
            taken.set_flag(flag, False)
        if index == len(others) - 1:
            following = Edge(final, head.line)
        else:
            following = Edge(graph.new(head.line), head.line)
            following.target.after = head
        node.term = ("if", flag, taken, following)
        node = following.target
    if not others:
        node.term = ("goto", Edge(final, head.line))
    for _, edge in exits:
        target = edge.target
        if target is primary:
            edge.target = dispatch
        else:
            edge.target = dispatch
            edge.set_flag(_flag(graph, target, names), True)
