"""Random GO TO-rich programs, to check that restructuring control flow
(:mod:`adfort.restructure`) keeps their meaning.

Each generated subroutine mixes forward and backward GO TOs, computed GO
TOs, arithmetic IFs, labelled DO loops (jumps to their terminal statement,
out of one or several loops), IF blocks with jumps out of them, RETURNs
and statement functions.  Backward jumps all count on one counter so that
every program terminates.  :func:`compare` compiles a file of such
subroutines before and after the rewrite with gfortran, runs both on
several inputs and returns the differences of their printed results.
"""

import os
import random
import subprocess
import tempfile

from adfort.restructure import restructure


class _Gen:
    def __init__(self, rng, fixed):
        self.rng = rng
        self.fixed = fixed
        self.next_label = 10
        self.items = []   # flattened: dicts

    def label(self):
        self.next_label += 10
        return str(self.next_label)

    # A block is a list of nodes; a node is ("stmt", text, label) or
    # ("do", header, body, term_label, style) or ("if", cond, then, else, endlabel)
    # or ("jump", kind, data) resolved later.
    def block(self, depth, loops, size):
        out = []
        for _ in range(size):
            r = self.rng.random()
            if depth < 3 and r < 0.16:
                out.append(self.do_loop(depth, loops))
            elif depth < 3 and r < 0.26:
                out.append(self.if_block(depth, loops))
            elif depth < 3 and r < 0.30:
                out.append(self.select(depth, loops))
            elif loops and r < 0.36:
                out.append(("jump", self.rng.choice(["exit", "cycle"]), None))
            elif r < 0.55:
                out.append(("jump", self.rng.choice(
                    ["goto", "ifgoto", "ifgoto", "back", "computed", "arith", "return",
                     "ifreturn", "ifgoto", "assigned"]), None))
            else:
                out.append(("stmt", self.simple(loops), None))
            if self.rng.random() < 0.45:
                node = out[-1]
                if node[0] in ("stmt", "jump") and node[-1] is None:
                    out[-1] = node[:-1] + (self.label(),)
        if self.rng.random() < 0.5:
            out.append(("stmt", "CONTINUE", self.label()))
        return out

    def simple(self, loops):
        loops = [v if isinstance(v, str) else v[0] for v in loops]
        idx = self.rng.choice(["1", "2", "MOD(K, N) + 1", "N"] + [f"MOD({v}, N) + 1" for v in loops])
        return self.rng.choice([
            f"Y = Y + 0.25D0*X({idx})",
            f"Y = Y*0.75D0 - 0.125D0*X({idx})",
            "K = K + 1",
            "K = MOD(3*K + 1, 11)",
            f"Y = Y + F(X({idx}))",
            "Y = Y + DBLE(IDBL(K))*0.01D0",
            f"Y = Y - X({idx})**2*0.5D0",
        ])

    def cond(self, loops):
        loops = [v if isinstance(v, str) else v[0] for v in loops]
        var = self.rng.choice(["K"] + loops)
        return self.rng.choice([
            "Y .GT. 0.3D0", f"MOD({var} + NB, 3) .EQ. 0", f"X(MOD({var}, N) + 1) .LT. 0.1D0",
            "K .GT. 4", f"{var} .LE. 2", "Y .LT. -0.2D0 .OR. K .EQ. 3"])

    def do_loop(self, depth, loops):
        var = ["I", "J", "L"][depth]
        style = self.rng.choice(["label", "label", "enddo", "labelled_enddo", "while", "named"])
        term = self.label()
        body = self.block(depth + 1, loops + [var], self.rng.randint(1, 4))
        upper = self.rng.choice(["N", "3", "K"])
        return ("do", f"{var} = 1, {upper}", body, term, style)

    def select(self, depth, loops):
        arms = [self.block(depth + 1, loops, self.rng.randint(1, 2)) for _ in range(3)]
        end = self.label() if self.rng.random() < 0.5 else None
        return ("select", "MOD(K, 3)", arms, end)

    def if_block(self, depth, loops):
        then = self.block(depth + 1, loops, self.rng.randint(1, 3))
        other = self.block(depth + 1, loops, self.rng.randint(1, 2)) \
            if self.rng.random() < 0.5 else None
        end = self.label() if self.rng.random() < 0.5 else None
        return ("if", self.cond(loops), then, other, end)

    # flatten to statements, remembering which labels each jump may use
    def flatten(self, block, visible, loops, out):
        own = list(visible)
        for node in block:
            if node[0] in ("stmt", "jump") and node[-1]:
                own.append(node[-1])
            elif node[0] == "do" and node[-1] == "label":
                pass
        for node in block:
            kind = node[0]
            if kind == "stmt":
                out.append({"label": node[2], "text": node[1]})
            elif kind == "jump":
                out.append({"label": node[2], "jump": node[1], "visible": own,
                            "loops": loops})
            elif kind == "select":
                _, expr, arms, end = node
                inner = own + ([end] if end else [])
                out.append({"label": None, "text": f"SELECT CASE ({expr})"})
                for index, arm in enumerate(arms):
                    out.append({"label": None, "text": "CASE DEFAULT" if index == 2
                                else f"CASE ({index})"})
                    self.flatten(arm, inner, loops, out)
                out.append({"label": end, "text": "END SELECT"})
            elif kind == "do":
                _, header, body, term, style = node
                var = header.split()[0]
                inner_visible = own + [term]
                if style == "while":
                    out.append({"label": None, "text": f"{var} = 0"})
                    out.append({"label": None, "text": f"DO WHILE ({var} .LT. 3)"})
                    out.append({"label": None, "text": f"{var} = {var} + 1"})
                    self.flatten(body, own, loops + [var], out)
                    out.append({"label": None, "text": "END DO"})
                elif style == "named":
                    out.append({"label": None, "text": f"LP{term}: DO {header}"})
                    self.flatten(body, own, loops + [(var, f"LP{term}")], out)
                    out.append({"label": None, "text": f"END DO LP{term}"})
                elif style == "label":
                    out.append({"label": None, "text": f"DO {term} {header}"})
                    self.flatten(body, inner_visible, loops + [var], out)
                    out.append({"label": term, "text": "CONTINUE"})
                else:
                    out.append({"label": None, "text": f"DO {header}"})
                    self.flatten(body, inner_visible if style == "labelled_enddo" else own,
                                 loops + [var], out)
                    out.append({"label": term if style == "labelled_enddo" else None,
                                "text": "END DO"})
            elif kind == "if":
                _, cond, then, other, end = node
                inner = own + ([end] if end else [])
                out.append({"label": None, "text": f"IF ({cond}) THEN"})
                self.flatten(then, inner, loops, out)
                if other is not None:
                    out.append({"label": None, "text": "ELSE"})
                    self.flatten(other, inner, loops, out)
                out.append({"label": end, "text": "END IF"})

    def resolve(self, out):
        position = {}
        for index, item in enumerate(out):
            if item.get("label"):
                position[item["label"]] = index
        lines = []
        for index, item in enumerate(out):
            if "jump" not in item:
                lines.append((item["label"], item["text"]))
                continue
            kind = item["jump"]
            visible = [l for l in item["visible"] if l in position]
            forward = [l for l in visible if position[l] > index]
            backward = [l for l in visible if position[l] <= index]
            loops = item["loops"]
            label = item["label"]
            if kind in ("exit", "cycle"):
                names = [v[1] for v in loops if not isinstance(v, str)]
                name = " " + self.rng.choice(names) if names and self.rng.random() < 0.7 else ""
                lines.append((label, f"IF ({self.cond(loops)}) {kind.upper()}{name}"))
                continue
            if kind in ("return", "ifreturn") or not (forward or backward):
                if kind == "return" and self.rng.random() < 0.5:
                    lines.append((label, "RETURN"))
                else:
                    lines.append((label, f"IF ({self.cond(loops)}) RETURN"))
                continue
            if kind == "back" and backward:
                target = self.rng.choice(backward)
                lines.append((label, "NB = NB + 1"))
                lines.append((None, f"IF (NB .LT. 6) GO TO {target}"))
                continue
            if not forward:
                lines.append((label, f"IF ({self.cond(loops)}) RETURN"))
                continue
            if kind == "goto":
                lines.append((label, f"GO TO {self.rng.choice(forward)}"))
            elif kind == "computed":
                targets = [self.rng.choice(forward) for _ in range(self.rng.randint(2, 3))]
                lines.append((label, f"GO TO ({', '.join(targets)}) MOD(K, 4)"))
            elif kind == "assigned":
                # F77's ASSIGN and assigned GO TO (the list names the label).
                target = self.rng.choice(forward)
                others = [self.rng.choice(forward) for _ in range(self.rng.randint(0, 2))]
                lines.append((label, f"ASSIGN {target} TO LA"))
                lines.append((None, f"GO TO LA, ({', '.join(dict.fromkeys([target] + others))})"))
            elif kind == "arith":
                targets = [self.rng.choice(forward) for _ in range(3)]
                expr = self.rng.choice(["K - 3", "Y - 0.2D0", "MOD(K, 3) - 1"])
                lines.append((label, f"IF ({expr}) {', '.join(targets)}"))
            else:
                lines.append((label, f"IF ({self.cond(loops)}) GO TO {self.rng.choice(forward)}"))
        return lines


def subroutine(name, seed, fixed):
    """Source lines of one random subroutine ``name(n, x, y, k)``."""
    rng = random.Random(seed)
    gen = _Gen(rng, fixed)
    body = gen.block(0, [], rng.randint(4, 9))
    flat = []
    gen.flatten(body, [], [], flat)
    lines = [(None, f"SUBROUTINE {name}(N, X, Y, K)"),
             (None, "INTEGER N, K, I, J, L, NB, IDBL, M, LA"),
             (None, "DOUBLE PRECISION X(N), Y, F, A"),
             (None, "F(A) = A*A + 0.5D0"),
             (None, "IDBL(M) = 2*M - 1"),
             (None, "NB = 0"), (None, "I = 1"), (None, "J = 1"), (None, "L = 1")]
    lines += gen.resolve(flat)
    lines.append((None, "END"))
    return [_format(label, text, fixed) for label, text in lines]


def _format(label, text, fixed):
    if fixed:
        field = (label or "").rjust(5)
        out = f"{field} {text}"
        if len(out) > 72:
            out = out[:72] + "\n     &" + out[72:]
        return out
    return f"{label} {text}" if label else f"  {text}"


def program(names, fixed):
    """A main program calling each subroutine on several inputs."""
    lines = ["PROGRAM MAIN", "DOUBLE PRECISION X(5), Y", "INTEGER K, T, N, I"]
    for name in names:
        lines += [
            "DO T = 1, 7",
            "N = MOD(T, 5) + 1",
            "DO I = 1, 5",
            "X(I) = SIN(0.7D0*I*T) + 0.1D0",
            "END DO",
            "K = T",
            "Y = 0.1D0*T",
            f"CALL {name}(N, X, Y, K)",
            f"PRINT '(A, I3, ES25.16, I8)', '{name}', T, Y, K",
            "END DO"]
    lines.append("END")
    return [("      " + l) if fixed else l for l in lines]


def compare(count, seed, fixed, keep=None):
    """Compile and run random subroutines before and after restructuring.

    :returns: (rejected: [(name, message)] of the subroutines restructuring
        refused with an AdfortError, problems: a message per subroutine
        whose output differs, or a compile error of the rewritten file).
    """
    from adfort.errors import AdfortError
    suffix = ".f" if fixed else ".f90"
    rejected, names, old, new = [], [], [], []
    for i in range(count):
        name = f"P{seed}X{i}"
        text = "\n".join(subroutine(name, seed * 1000 + i, fixed)) + "\n"
        try:
            rewritten, _ = restructure(text, fixed, name + suffix)
        except AdfortError as err:
            rejected.append((name, str(err)))
            continue
        names.append(name)
        old.append(text)
        new.append(rewritten)
    main = "\n".join(program(names, fixed)) + "\n"
    workdir = tempfile.mkdtemp() if keep else None
    with tempfile.TemporaryDirectory() as tmp:
        workdir = workdir or tmp
        before, err = _run("".join(old) + main, suffix, workdir, "before")
        if before is None:
            return rejected, [f"original does not compile: {err}"]
        after, err = _run("".join(new) + main, suffix, workdir, "after")
        if after is None:
            return rejected, [f"rewritten does not compile ({workdir}): {err[:3000]}"]
    problems = []
    lines_before, lines_after = before.splitlines(), after.splitlines()
    for name, text, rewritten in zip(names, old, new):
        a = [l for l in lines_before if l.split()[0] == name]
        b = [l for l in lines_after if l.split()[0] == name]
        if a != b:
            problems.append(f"{name} differs:\n  before {a}\n  after  {b}\n{text}\n{rewritten}")
    return rejected, problems


def _run(text, suffix, workdir, tag):
    path = os.path.join(workdir, tag + suffix)
    with open(path, "w") as handle:
        handle.write(text)
    exe = os.path.join(workdir, tag)
    proc = subprocess.run(["gfortran", "-O0", "-std=legacy", "-w", "-o", exe, path],
                          capture_output=True, text=True)
    if proc.returncode:
        return None, proc.stderr
    run = subprocess.run([exe], capture_output=True, text=True, timeout=60)
    return run.stdout, run.stderr
