"""The mask of a DO CONCURRENT loop made an IF in its body.

``do concurrent (i = 1:n, x(i) > 0)`` runs its body for the indices where
the mask holds.  PSyclone reads the loop's index ranges and drops the mask,
so the body would run for every index (wrong results and derivatives).
Before PSyclone reads the source, the mask becomes an IF around the body::

    do concurrent (i = 1:n, x(i) > 0)         do concurrent (i = 1:n)
      x(i) = x(i)**2                   ->       if (x(i) > 0) then
    end do                                        x(i) = x(i)**2
                                                end if
                                              end do

The iterations of a DO CONCURRENT loop are independent, so testing the
mask in each one is what the construct means.  Lines keep their origin.
"""

import re

from adfort import implicit
from adfort.statements import matching_paren, outside_parentheses, split_top_level
from adfort.units import split_comment, statements

_HEAD = re.compile(r"^(?P<lead>\s*(?:\d+\s+)?(?:[a-z_]\w*\s*:\s*)?do\s*concurrent\s*)\(",
                   re.IGNORECASE)
_ASSIGN = re.compile(r"(?<![=<>/])=(?![=>])")


def lower_concurrent_masks(source, fixed_form, origin, path):
    """Rewrite the masked DO CONCURRENT loops of `source`.

    :param origin: (file, line) of each line of `source`, or None when the
        lines are those of `path`.
    :returns: (source, origin), unchanged when there is no such loop.
    """
    if not re.search(r"concurrent", source, re.IGNORECASE):
        return source, origin
    from adfort.checkpoint_loops import _labels, _loop_end
    lines = source.splitlines()
    stmts = statements(source, fixed_form)
    labels = _labels(lines, fixed_form)
    replaced, closes = {}, {}
    for position, (first, last, text) in enumerate(stmts):
        if not re.match(r"^(?:[a-z_]\w*\s*:\s*)?do\s*concurrent\b", text):
            continue
        raw = _joined(lines[first:last + 1], fixed_form)
        head = _HEAD.match(raw)
        if head is None:
            continue
        start = head.end() - 1
        close = matching_paren(raw, start)
        if close < 0:
            continue
        items = split_top_level(raw[start + 1:close])
        if len(items) < 2 or _ASSIGN.search(outside_parentheses(items[-1])):
            continue    # no mask
        end = _loop_end(stmts, labels, position)
        if end is None:
            continue
        mask = items[-1].strip()
        new_head = f"{head.group('lead').strip()} ({', '.join(i.strip() for i in items[:-1])})" \
            f"{raw[close + 1:].rstrip()}"
        replaced[first] = (last, implicit._layout(new_head, fixed_form)
                           + implicit._layout(f"if ({mask}) then", fixed_form))
        closes[stmts[end][0]] = implicit._layout("end if", fixed_form)
    if not replaced:
        return source, origin
    if origin is None:
        origin = [(path, n) for n in range(1, len(lines) + 1)]
    out, out_origin, skip_to = [], [], -1
    for index, line in enumerate(lines):
        if index <= skip_to:
            continue
        if index in closes:
            out += closes[index]
            out_origin += [origin[index]] * len(closes[index])
        if index in replaced:
            last, new = replaced[index]
            out += new
            out_origin += [origin[index]] * len(new)
            skip_to = last
            continue
        out.append(line)
        out_origin.append(origin[index])
    return "\n".join(out) + "\n", out_origin


def _joined(lines, fixed_form):
    """The statement on `lines` on one line, case kept (comments dropped)."""
    if fixed_form:
        return "".join(line[6:72] if i else line[:72] for i, line in enumerate(lines))
    parts = []
    for line in lines:
        code = split_comment(line)[0].strip()
        if parts and code.startswith("&"):
            code = code[1:]
        parts.append(code[:-1] if code.endswith("&") else code)
    return " ".join(parts)
