"""Labelled DO loops (``DO 10 I = 1, N`` … ``10 CONTINUE``) written as
DO … END DO, which PSyIR represents (it keeps labelled loops as opaque code
blocks), each line keeping its number."""

import re

from adfort.units import split_comment


_LABELLED_DO = re.compile(r"^(\s*)do\s+(\d+)\s*,?\s*(?=[a-z])", re.IGNORECASE)
# What every labelled DO statement holds (a test of the whole text first).
_ANY_LABELLED_DO = re.compile(r"do\s+\d", re.IGNORECASE)
_CONTINUE = re.compile(r"^\s*continue\s*$", re.IGNORECASE)
# A labelled DO may also end at a labelled END DO (``20 END DO``).
_END_DO = re.compile(r"^\s*end\s*do\s*$", re.IGNORECASE)


def _split_label(line, fixed_form):
    """(label or None, statement text, prefix width) of a source line."""
    if fixed_form:
        field = line[:5]
        if len(line) > 5 and line[5] not in (" ", "0"):
            return None, None, 0  # continuation line
        label = field.strip()
        return (label if label.isdigit() else None), line[6:], 6
    match = re.match(r"^\s*(\d+)\s+", line)
    if match:
        return match.group(1), line[match.end():], match.end()
    return None, line, 0


def unlabel_do_loops(source, fixed_form):
    """Rewrite labelled DO loops (``DO 10 I = 1, N`` … ``10 CONTINUE``) as
    DO … END DO, which PSyIR represents (it keeps labelled loops as opaque
    code blocks).  Each line keeps its number: a terminal statement becomes
    ``END DO`` (or ``statement; END DO``), several loops sharing a label get
    one ``END DO`` each."""
    if not _ANY_LABELLED_DO.search(source):
        return source   # (no line would change: the usual case, at a glance)
    lines = source.splitlines(keepends=True)
    referenced = set(re.findall(r"\bgo\s*to\s*(\d+)", source, re.IGNORECASE))
    open_labels = []
    for number, line in enumerate(lines):
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        if fixed_form and body[:1] in ("c", "C", "*", "!"):
            continue
        label, statement, width = _split_label(body, fixed_form)
        if statement is None:
            continue
        match = _LABELLED_DO.match(statement)
        if match:
            open_labels.append(match.group(2))
            statement = match.group(1) + "do " + statement[match.end():]
            lines[number] = body[:width] + statement + ending
            continue
        if label is None or label not in open_labels:
            continue
        closing = 0
        while open_labels and open_labels[-1] == label:
            open_labels.pop()
            closing += 1
        keep = label if label in referenced else ""
        prefix = (f"{keep:<5} " if fixed_form else (keep + " " if keep else ""))
        indent = "" if fixed_form else body[:len(body) - len(body.lstrip())]
        ends = "; ".join(["end do"] * closing)
        if _CONTINUE.match(statement) or _END_DO.match(statement):
            text = ends
        else:
            last = _statement_end(lines, number, fixed_form)
            if last != number:
                # A terminal statement continued over lines (netlib's
                # ``224 f5(k)=…+`` / ``1 (29440.0d0*…)``): END DO after its
                # last line.
                tail = lines[last].rstrip("\r\n")
                code, comment = split_comment(tail)
                lines[last] = code.rstrip() + "; " + ends + \
                    (" " + comment if comment else "") + lines[last][len(tail):]
                ends = ""
            text = statement.strip() + ("; " + ends if ends else "")
        lines[number] = prefix + (indent if not fixed_form else "") + text + ending
    return "".join(lines)


def _statement_end(lines, number, fixed_form):
    """Index of the last line of the statement starting on line `number`
    (its continuation lines; comment lines between them skipped)."""
    last, index = number, number + 1
    if not fixed_form and not split_comment(lines[number].rstrip("\r\n"))[0] \
            .rstrip().endswith("&"):
        return number
    while index < len(lines):
        body = lines[index].rstrip("\r\n")
        if fixed_form:
            if not body.strip() or body[:1] in ("c", "C", "*", "!") or \
                    body.lstrip().startswith("!"):
                index += 1
                continue
            if len(body) > 5 and body[5] not in (" ", "0") and "\t" not in body[:5]:
                last = index
                index += 1
                continue
            return last
        stripped = body.strip()
        if not stripped or stripped.startswith("!"):
            index += 1
            continue
        last = index
        if not split_comment(body)[0].rstrip().endswith("&"):
            return last
        index += 1
    return last
