"""OPTIONAL arguments.

PSyclone keeps an ``OPTIONAL`` declaration as unsupported text (with the
type it could read as its *partial* datatype).  adfort reads such an
argument as a plain one of that type and remembers that it is optional
(on its routine, ``adfort_optional``), so that every analysis sees its type
and intent, and the generated routines declare it ``OPTIONAL`` again.

An active optional argument's adjoint is optional too.  The user's code
touches an optional argument only under ``PRESENT``; so does the adjoint of
that code (the returning motion follows the branches the recording took).
What adfort adds itself around the user's code (copies kept by ``r_rev``,
saves around a call) is guarded with ``PRESENT`` here.
"""

import re

from psyclone.psyir.nodes import Call, IfBlock, IntrinsicCall, Reference, Routine
from psyclone.psyir.symbols import (
    ArgumentInterface, DataSymbol, UnsupportedFortranType)

from adfort.errors import AdfortError, where

_OPTIONAL = re.compile(r",\s*optional\b", re.IGNORECASE)
_INTENT = re.compile(r"\bintent\s*\(\s*(in\s*out|inout|in|out)\s*\)", re.IGNORECASE)
# Attributes that keep the declaration unsupported for other reasons.
_OTHER = re.compile(r"\b(pointer|target|value|volatile|asynchronous|class|type\s*\()",
                    re.IGNORECASE)
_ACCESS = {"in": ArgumentInterface.Access.READ, "out": ArgumentInterface.Access.WRITE,
           "inout": ArgumentInterface.Access.READWRITE}


def read_optional_arguments(tree):
    """Read the OPTIONAL arguments of every routine of `tree` as plain ones
    of their type, recording their names in ``routine.adfort_optional``."""
    for routine in tree.walk(Routine):
        names = set()
        for symbol in routine.symbol_table.argument_list:
            dtype = symbol.datatype
            if not isinstance(dtype, UnsupportedFortranType):
                continue
            text = dtype.declaration
            partial = getattr(dtype, "partial_datatype", None)
            # (The attributes only: a dummy may be called ``target``.)
            attributes = text.split("::")[0] if "::" in text else text
            if partial is None or not _OPTIONAL.search(attributes) or _OTHER.search(attributes):
                continue
            symbol.datatype = partial
            intent = _INTENT.search(text)
            access = _ACCESS[re.sub(r"\s", "", intent.group(1).lower())] if intent \
                else ArgumentInterface.Access.UNKNOWN
            symbol.interface = ArgumentInterface(access)
            names.add(symbol.name.lower())
        routine.adfort_optional = names


def optional_names(routine):
    """Lower-case names of `routine`'s optional arguments."""
    return set(getattr(routine, "adfort_optional", ()))


def declare_optional(table, names):
    """Declare the arguments of `table` named in `names` OPTIONAL again
    (as unsupported text: PSyIR has no optional attribute)."""
    from adfort.writer import Writer
    writer = Writer()
    for symbol in table.argument_list:
        if symbol.name.lower() in names and not isinstance(
                symbol.datatype, UnsupportedFortranType):
            head, _, tail = writer.gen_vardecl(symbol).strip().partition("::")
            symbol.datatype = UnsupportedFortranType(
                f"{head.rstrip()}, optional :: {tail.strip()}")


def present(symbol):
    """``PRESENT(symbol)``."""
    return IntrinsicCall.create(IntrinsicCall.Intrinsic.PRESENT, [Reference(symbol)])


def guarded(statements, symbols):
    """`statements` run only when every optional argument of `symbols` is
    present (as they are when `symbols` is empty)."""
    if not symbols or not statements:
        return list(statements)
    from psyclone.psyir.nodes import BinaryOperation
    condition = present(symbols[0])
    for symbol in symbols[1:]:
        condition = BinaryOperation.create(BinaryOperation.Operator.AND, condition,
                                           present(symbol))
    return [IfBlock.create(condition, [s.detach() if s.parent else s for s in statements])]


def matched_formals(call, formals):
    """The dummy argument among `formals` each actual argument of `call`
    goes to, in the order of the actuals (by position, then by keyword),
    None where none does.  Every pairing of actuals with dummies goes
    through here: a call may name its arguments after leaving one out."""
    by_name = {f.name.lower(): f for f in formals}
    matched = []
    for position, name in enumerate(call.argument_names):
        if name:
            matched.append(by_name.get(name.lower()))
        else:
            matched.append(formals[position] if position < len(formals) else None)
    return matched


def callee_formals(callee):
    """A callee's dummy arguments, without a function's result."""
    return [f for f in callee.formals if f is not callee.result]


def positional_arguments(routine, callees, filename):
    """Put the actual arguments of calls to routines with source in the
    order of the dummies (``call f(x, scale=s, y=y)`` -> ``call f(x, y,
    scale=s)``), by position up to the first optional argument left out and
    by keyword after it (``call check(c, file=f, line=l)`` without ``msg``
    stays so): the generated calls keep that form, and
    :func:`matched_formals` pairs them.

    :param callees: {id(Call): callee with ``formals`` and ``result``, or
        None (left as it is)}.
    :raises AdfortError: for a keyword the callee has no argument of.
    """
    for call in routine.walk(Call):
        if isinstance(call, IntrinsicCall) or not any(call.argument_names):
            continue
        callee = callees.get(id(call))
        if callee is None:
            continue
        formals = [f.name.lower() for f in callee_formals(callee)]
        bound = {}
        for position, (name, actual) in enumerate(zip(call.argument_names, call.arguments)):
            key = name.lower() if name else (formals[position] if position < len(formals)
                                             else None)
            if key not in formals:
                raise AdfortError(f"'{call.routine.name}' has no argument '{name}'",
                                  where(call, filename))
            bound[key] = actual
        actuals, named = [], False
        for formal in formals:
            if formal not in bound:
                named = True    # left out: the ones after it go by keyword
                continue
            actual = bound[formal].detach()
            actuals.append((formal, actual) if named else actual)
        ordered = Call.create(call.routine.copy(), actuals)
        call.replace_with(ordered)
        callees[id(ordered)] = callees.pop(id(call))


def optional_in(symbols, optional):
    """The DataSymbols among `symbols` named in `optional`."""
    return [s for s in symbols if isinstance(s, DataSymbol) and s.name.lower() in optional]


def interface_intents(routine, name):
    """The intents an INTERFACE block visible in `routine` (its own or its
    module's) gives the dummies of procedure `name`: {position: intent,
    lower-case dummy name: intent} with intent ``"in"``, ``"out"``,
    ``"inout"`` or None (not declared); None when no interface declares it.
    """
    import re
    wanted = name.lower()
    node = routine
    while node is not None:
        table = getattr(node, "_symbol_table", None)
        for symbol in table.symbols if table is not None else ():
            declaration = str(getattr(getattr(symbol, "datatype", None), "declaration", ""))
            if not re.match(r"\s*(?:abstract\s+)?interface\b", declaration, re.I):
                continue
            for body in re.finditer(
                    r"^\s*(?:[\w(),=*\s]*\s)?(?:subroutine|function)\s+(\w+)\s*\(([^)]*)\)"
                    r"(.*?)^\s*end\s*(?:subroutine|function)\b", declaration,
                    re.I | re.M | re.S):
                if body.group(1).lower() != wanted:
                    continue
                dummies = [d.strip().lower() for d in body.group(2).split(",") if d.strip()]
                declared = {}
                for line in body.group(3).splitlines():
                    intent = re.search(r"intent\s*\(\s*(in\s*out|inout|in|out)\s*\)", line, re.I)
                    if intent and "::" in line:
                        for entity in line.split("::", 1)[1].split(","):
                            entity = re.match(r"\s*(\w+)", entity)
                            if entity:
                                declared[entity.group(1).lower()] = \
                                    intent.group(1).lower().replace(" ", "")
                found = {}
                for position, dummy in enumerate(dummies):
                    found[position] = found[dummy] = declared.get(dummy)
                return found
        node = node.parent
    return None
