"""Room for deep trees: a thread with a big stack and a high recursion
limit.

Expressions of thousands of terms (generated chemistry: a flat sum over a
KPP mechanism's reactions) are trees as deep as they are long, which
adfort and PSyclone walk recursively.  Python's default limit (1,000
frames) stopped a sum of 250 terms; the work gets a higher limit and a
thread with a stack to match (the default 8 MB would overflow first).
The command line and the Python API (``ADReverseContainerTrans.apply``,
``adfort.api``) both run their work this way.
"""

import functools
import sys
import threading

RECURSION_LIMIT = 200_000
STACK_BYTES = 1 << 30

_local = threading.local()


def deep(work):
    """`work()`'s result, computed in a thread with room for deep trees (or
    here, when this already is such a thread); its exception is raised
    here."""
    if getattr(_local, "deep", False):
        return work()
    result, error = [], []

    def target():
        _local.deep = True
        try:
            result.append(work())
        except BaseException as err:  # noqa: BLE001 (raised again by the caller)
            error.append(err)

    previous_stack = threading.stack_size()
    previous_limit = sys.getrecursionlimit()
    try:
        threading.stack_size(STACK_BYTES)
        sys.setrecursionlimit(max(previous_limit, RECURSION_LIMIT))
        thread = threading.Thread(target=target)
        thread.start()
        thread.join()
    except (RuntimeError, ValueError, MemoryError):
        return work()       # (a platform refusing the stack size)
    finally:
        threading.stack_size(previous_stack)
        sys.setrecursionlimit(previous_limit)
    if error:
        raise error[0]
    return result[0]


def room_for_deep_trees(function):
    """Decorator: `function` runs by :func:`deep`."""
    @functools.wraps(function)
    def wrapper(*args, **keywords):
        return deep(lambda: function(*args, **keywords))
    return wrapper
