"""Reduce a failing case to a small one failing the same way.

Greedy delta debugging on the program model: drop helper routines nobody
calls, statements (whole constructs first, then the statements inside),
replace constructs by one of their bodies, drop dependents and
independents, ``--jacobian``, unused variables and arguments; a change is
kept when the case still fails with the same failure key
(:attr:`adfort.testing.checker.Result.key`), adjoint and tangent failures
alike.  Initialisations that keep
every variable defined (``Node.keep``) are never dropped.
"""

import re
import time

from adfort.testing.checker import check
from adfort.testing.model import walk_bodies


def _routine_texts(case):
    out = {}
    for r in case.routines():
        out[r.name] = "\n".join(line for n in r.body for line in n.lines())
    return out


def _referenced(name, text):
    return re.search(rf"\b{re.escape(name)}\b", text, re.IGNORECASE)


def _drop_routine(case, name):
    new = case.copy()
    for mod in new.modules:
        mod.routines = [r for r in mod.routines if r.name != name]
    new.externals = [r for r in new.externals if r.name != name]
    for r in new.routines():
        r.externals = [e for e in r.externals if not _referenced(name, e)]
    return new


def _bodies(case):
    """(routine index, body index, body) in a fixed order."""
    for ri, r in enumerate(case.routines()):
        for bi, body in enumerate(walk_bodies(r.body)):
            yield ri, bi, body


def _body_at(case, ri, bi):
    r = list(case.routines())[ri]
    for k, body in enumerate(walk_bodies(r.body)):
        if k == bi:
            return body
    return None


def _own_init(node, name):
    """Whether `node` is an initialisation (or allocation) of `name` only."""
    t = node.text.strip().lower()
    return node.keep and not node.blocks and "\n" not in t and (
        t.startswith(f"{name} =") or t.startswith(f"allocate({name}(")
        or t == f"deallocate({name})")


def _unused_vars(case):
    """Copy of case without variables that no statement, bound or role
    mentions (arguments included, except the top routine's active ones),
    and without their initialisations."""
    new = case.copy()
    roles = {n.lower() for n in new.dep + new.indep}
    changed = False
    for r in new.routines():
        dims = " ".join(d.lo.text() + " " + d.hi.text()
                        for v in r.vars.values() if v.dims for d in v.dims)
        for name in list(r.vars):
            if name == r.result or name in roles and r.name == new.top:
                continue
            text = "\n".join(line for body in walk_bodies(r.body)
                             for n in body if not _own_init(n, name)
                             for line in (n.lines() if not n.blocks else
                                          [h for h, _ in n.blocks]))
            if _referenced(name, text) or _referenced(name, dims):
                continue
            if name in r.args and r.name != new.top:
                continue  # callers pass it
            del r.vars[name]
            if name in r.args:
                r.args.remove(name)
            for body in walk_bodies(r.body):
                body[:] = [n for n in body if not _own_init(n, name)]
            changed = True
    return new if changed else None


def candidates(case):
    """Smaller variants of `case`, most promising first."""
    texts = _routine_texts(case)
    for r in case.routines():
        if r.name == case.top:
            continue
        others = "\n".join(t for n, t in texts.items() if n != r.name)
        if not _referenced(r.name, others):
            yield _drop_routine(case, r.name)
    for ri, bi, body in list(_bodies(case)):
        for k in range(len(body) - 1, -1, -1):
            node = body[k]
            if node.keep:
                continue
            new = case.copy()
            del _body_at(new, ri, bi)[k]
            yield new
            if node.blocks:
                for h in range(len(node.blocks)):
                    if node.blocks[h][1]:
                        new = case.copy()
                        tgt = _body_at(new, ri, bi)
                        tgt[k:k + 1] = tgt[k].blocks[h][1]
                        yield new
    if case.jacobian:
        new = case.copy()
        new.jacobian = False
        yield new
    for attr in ("dep", "indep"):
        names = getattr(case, attr)
        if len(names) > 1:
            for k in range(len(names)):
                new = case.copy()
                del getattr(new, attr)[k]
                yield new
    new = _unused_vars(case)
    if new is not None:
        yield new


def shrink_case(case, result, budget=240.0, max_checks=400, verbose=False,
                tangent=True):
    """(smallest case found, its result) failing with `result`'s key
    (`tangent`: whether the tangent is checked, as for
    :func:`adfort.testing.checker.check`)."""
    key = result.key
    best, best_res = case, result
    start, checks = time.time(), 0
    improved = True
    while improved:
        improved = False
        for cand in candidates(best):
            if time.time() - start > budget or checks >= max_checks:
                return best, best_res
            checks += 1
            res = check(cand, tangent=tangent)
            if res.key == key:
                best, best_res = cand, res
                improved = True
                if verbose:
                    n = sum(len(b) for _, _, b in _bodies(best))
                    print(f"  shrink: {checks} checks, {n} statements",
                          flush=True)
                break
    return best, best_res
