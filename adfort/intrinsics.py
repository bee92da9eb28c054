"""Every Fortran intrinsic PSyclone knows, classified for differentiation.

Each intrinsic is in exactly one place (a test checks the whole list):

- :data:`adfort.rules.RULES`: it has a derivative rule (or is a real
  function whose derivative is zero wherever it exists, e.g. ``AINT``);
- :data:`PASSIVE`: its result cannot carry a derivative by nature (an
  integer, logical or character result, an inquiry about a type or
  shape, bits of integers);
- :data:`UNSUPPORTED`: its result would carry a derivative adfort does
  not provide; using it on an active value is an error, with the reason;
- :data:`SUBROUTINES`: an intrinsic subroutine (``CALL RANDOM_NUMBER(r)``);
  passing it an active variable is an error.

Also here: the names of an intrinsic call's arguments, so that rules see
``SUM(a, mask=m)`` and ``SUM(a, dim=2)`` as what they are.
"""

from psyclone.psyir.nodes import IntrinsicCall

_COMPLEX = ("complex active values are not supported: split the value into its "
            "real and imaginary parts, held in real variables")

PASSIVE = frozenset({
    # Integer, logical or character results of any arguments.
    "ACHAR", "ADJUSTL", "ADJUSTR", "ALL", "ANY", "BGE", "BGT", "BLE", "BLT",
    "BTEST", "CHAR", "COUNT", "DSHIFTL", "DSHIFTR", "EXPONENT", "FINDLOC",
    "FLOAT", "IACHAR", "IALL", "IAND", "IANY", "IBCLR", "IBITS", "IBSET",
    "ICHAR", "IEOR", "INDEX", "IOR", "IPARITY", "IS_IOSTAT_END",
    "IS_IOSTAT_EOR", "ISHFT", "ISHFTC", "LEADZ", "LEN_TRIM", "LGE", "LGT",
    "LLE", "LLT", "LOGICAL", "MASKL", "MASKR", "MAXLOC", "MERGE_BITS",
    "MINLOC", "NEW_LINE", "NOT", "OUT_OF_RANGE", "PARITY", "POPCNT",
    "POPPAR", "REPEAT", "SCAN", "SHIFTA", "SHIFTL", "SHIFTR", "TRAILZ",
    "TRIM", "VERIFY",
    # Inquiries: the result depends on type, kind, shape or allocation.
    "ALLOCATED", "ASSOCIATED", "BIT_SIZE", "EXTENDS_TYPE_OF",
    "IS_CONTIGUOUS", "LEN", "MAXEXPONENT", "MINEXPONENT", "PRESENT",
    "RADIX", "RANK", "SAME_TYPE_AS", "SELECTED_CHAR_KIND",
    "SELECTED_INT_KIND", "SELECTED_REAL_KIND", "STORAGE_SIZE", "NULL",
    # The program's environment and its images (coarrays).
    "COMMAND_ARGUMENT_COUNT", "COSHAPE", "FAILED_IMAGES", "GET_TEAM",
    "IMAGE_INDEX", "IMAGE_STATUS", "LCOBOUND", "NUM_IMAGES",
    "STOPPED_IMAGES", "TEAM_NUMBER", "THIS_IMAGE", "UCOBOUND",
})

UNSUPPORTED = {
    "TRANSFER": "TRANSFER reinterprets the bits of its argument: the result "
                "has no derivative; do not bit-cast active values",
    "REDUCE": "REDUCE applies a user function adfort cannot see through; "
              "write the reduction as a loop",
    "CMPLX": _COMPLEX,
    "AIMAG": _COMPLEX,
    "CONJG": _COMPLEX,
}

SUBROUTINES = frozenset({
    "ALLOCATE", "DEALLOCATE", "NULLIFY", "MOVE_ALLOC", "MVBITS",
    "CPU_TIME", "DATE_AND_TIME", "SYSTEM_CLOCK",
    "RANDOM_NUMBER", "RANDOM_SEED", "RANDOM_INIT",
    "EXECUTE_COMMAND_LINE", "GET_COMMAND", "GET_COMMAND_ARGUMENT",
    "GET_ENVIRONMENT_VARIABLE", "EVENT_QUERY",
    "ATOMIC_ADD", "ATOMIC_AND", "ATOMIC_CAS", "ATOMIC_DEFINE",
    "ATOMIC_FETCH_ADD", "ATOMIC_FETCH_AND", "ATOMIC_FETCH_OR",
    "ATOMIC_FETCH_XOR", "ATOMIC_OR", "ATOMIC_REF", "ATOMIC_XOR",
    "CO_BROADCAST", "CO_MAX", "CO_MIN", "CO_REDUCE", "CO_SUM",
})


def _signature(name):
    try:
        return IntrinsicCall.Intrinsic[name].value
    except KeyError:
        return None


def argument_names(name, given):
    """The standard names of an intrinsic call's arguments, in call order.

    :param str name: the intrinsic (``"SUM"``).
    :param given: the names written in the call (None for a positional
        argument), e.g. PSyIR's ``IntrinsicCall.argument_names``.
    :returns: lower-case names; a positional argument takes the name of
        its position (``SUM(a, 2)`` is array, dim), None where the
        intrinsic's arguments have no names (``MAX``).
    """
    given = [n.lower() if n else None for n in given]
    signature = _signature(name)
    if signature is None:
        return given
    positional = sum(1 for n in given if n is None)
    forms = [f for f in signature.required_args.arg_names if f and f[0]]
    form = max((f for f in forms if len(f) <= positional), key=len, default=())
    order = list(form) + [o.lower() for o in signature.optional_args]
    named = set(n for n in given if n)
    free = [o for o in order if o not in named]
    out = []
    for n in given:
        out.append(n if n is not None else (free.pop(0) if free else None))
    return out


def canonical_order(name, names):
    """Indices of the arguments with `names` in the intrinsic's standard
    order (required arguments, then optional ones as the standard lists
    them), so that positional rules see ``ATAN2(x=a, y=b)`` as ``(b, a)``.

    :param names: from :func:`argument_names`.
    """
    signature = _signature(name)
    if signature is None or any(n is None for n in names):
        return list(range(len(names)))
    forms = [f for f in signature.required_args.arg_names if f and f[0]]
    form = max((f for f in forms if set(f) <= set(names)), key=len, default=())
    order = list(form) + [o.lower() for o in signature.optional_args]
    rank = {n: i for i, n in enumerate(order)}
    return sorted(range(len(names)), key=lambda i: rank.get(names[i], len(order) + i))


def call_argument_names(node):
    """:func:`argument_names` of the IntrinsicCall `node`."""
    return argument_names(node.intrinsic.name, node.argument_names)
