"""``--cache DIR``: what adfort learns of a source, kept across runs.

Parsing Fortran (fparser) and building PSyIR from the parse tree are
most of reading a source.  With a cache directory, the PSyIR PSyclone's
reader builds from every text adfort parses (the file given, extra
files, the modules found with ``-I``, each as adfort rewrote it and kept
only what the run needs) is stored under the SHA-256 of that text, the
source form, the versions of adfort, fparser and PSyclone and the files
of adfort's package (its reader's hooks shape the tree); a later run that
reads the same text loads the tree instead.  (A tree pickle cannot hold
is stored as its parse tree, from which the PSyIR is built again.)
A Makefile rebuild after editing one file parses only that file again:
the others' texts, hence their keys, are unchanged.  An edited file has a
new key, so nothing stale is ever read; a cache entry that cannot be
loaded (corrupt, truncated, another Python) is ignored and written again.
Entries are written whole (renamed into place), so runs may share a
directory.  Entries are Python pickles: use a directory only you write.

Without ``--cache`` nothing is stored.  Whichever way, the output is the
same: the tree loaded is the tree the parse gives.
"""

import contextlib
import os
import sys
import tempfile

from adfort import __version__

_FORMAT = "adfort-psyir-2"
_active = None      # the Cache of the run in progress, or None
last = None         # the Cache of the last run that had one (its hits, misses)


class Cache:
    """A cache directory (created when first written).

    :ivar hits: parse trees loaded from the directory in this run.
    :ivar misses: parse trees made (and stored) in this run.
    """

    def __init__(self, directory):
        self.directory = str(directory)
        self.hits = 0
        self.misses = 0

    def _key(self, text, free_form, variant=()):
        import hashlib      # (hashlib and pickle: only for runs with a cache)
        import fparser
        import psyclone
        versions = (_FORMAT, __version__, getattr(fparser, "__version__", "?"),
                    getattr(psyclone, "__version__", "?"), sys.version_info[:2],
                    "free" if free_form else "fixed", _code_fingerprint(), tuple(variant))
        digest = hashlib.sha256(repr(versions).encode())
        digest.update(text.encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    def parse_tree(self, text, free_form, parse):
        """The fparser tree of `text`: loaded from the directory when there,
        else ``parse()``'s, which is then stored."""
        path = os.path.join(self.directory, f"parse-{self._key(text, free_form)}.pickle")
        tree = self._load(path)
        if tree is not None:
            self.hits += 1
            return tree
        tree = parse()
        self.misses += 1
        self._store(path, tree)
        return tree

    def psyir(self, text, free_form, parse, build, variant=()):
        """The PSyIR ``build(parse())`` of `text`: loaded from the directory
        when there (or built from the parse tree found there), else built
        and stored.

        :param variant: strings besides the text that shape the parse (the
            names read as user procedures)."""
        from psyclone.psyir.nodes import Node
        path = os.path.join(self.directory,
                            f"parse-{self._key(text, free_form, variant)}.pickle")
        tree = self._load(path)
        if tree is not None:
            self.hits += 1
            return tree if isinstance(tree, Node) else build(tree)
        parsed = parse()
        self.misses += 1
        tree = build(parsed)
        if not self._store(path, tree):
            self._store(path, parsed)
        return tree

    @staticmethod
    def _load(path):
        import pickle
        try:
            with open(path, "rb") as handle:
                tree = pickle.load(handle)
        except FileNotFoundError:
            return None
        except Exception:   # noqa: BLE001 (a corrupt entry is a miss)
            return None
        from fparser.two.utils import Base
        from psyclone.psyir.nodes import Node
        return tree if isinstance(tree, (Base, Node)) else None

    def _store(self, path, tree):
        """Store `tree` in `path`; whether it could be pickled."""
        import pickle
        try:
            data = _dumps(tree)
        except (RecursionError, pickle.PicklingError, TypeError, AttributeError):
            return False    # a tree pickle cannot hold: not cached
        tmp = None
        try:
            os.makedirs(self.directory, exist_ok=True)
            handle, tmp = tempfile.mkstemp(dir=self.directory, prefix=".parse-",
                                           suffix=".tmp")
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(tmp, path)
            tmp = None
        except OSError:
            pass        # a cache that cannot be written is no cache, not an error
        finally:
            if tmp is not None and os.path.exists(tmp):
                os.unlink(tmp)
        return True


def _code_fingerprint():
    """(name, size, time) of every file of adfort's package directory:
    entries made by other code are not used."""
    directory = os.path.dirname(os.path.abspath(__file__))
    found = []
    with os.scandir(directory) as entries:
        for entry in entries:
            if entry.name.endswith(".py"):
                status = entry.stat()
                found.append((entry.name, status.st_size, status.st_mtime_ns))
    return tuple(sorted(found))


def _dumps(tree):
    """The pickle of a parse tree or a PSyIR tree (see :class:`_Pickler`)."""
    import io
    import pickle
    out = io.BytesIO()
    _pickler_class()(out, protocol=pickle.HIGHEST_PROTOCOL).dump(tree)
    return out.getvalue()


_PICKLER = None


def _pickler_class():
    """A pickler for PSyIR trees: an enumeration member (operators,
    intrinsics, whose values hold functions) is pickled as its class and
    name; a node's list of children with the node it belongs to set before
    its children (appending to it validates them with the node); and a
    call's argument names, which PSyclone keys by the ``id`` of each
    argument, with the arguments themselves (new objects, new ids)."""
    global _PICKLER
    if _PICKLER is None:
        import copyreg
        import enum
        import pickle
        from psyclone.psyir.nodes import Call
        from psyclone.psyir.nodes.node import ChildrenList

        class _Pickler(pickle.Pickler):
            def reducer_override(self, obj):
                if isinstance(obj, enum.Enum):
                    place = _enum_place(type(obj))
                    if place is not None:
                        return _enum_member, place + (obj.name,)
                elif type(obj) is ChildrenList:
                    return _children_list, (type(obj), dict(obj.__dict__), list(obj))
                elif isinstance(obj, Call) and "_argument_names" in obj.__dict__:
                    state = dict(obj.__dict__)
                    arguments = {id(child): child for child in obj.children}
                    state["_argument_names"] = [(arguments.get(key), name)
                                                for key, name in obj._argument_names]
                    return copyreg.__newobj__, (type(obj),), state, None, None, _call_state
                return NotImplemented

        _PICKLER = _Pickler
    return _PICKLER


_ENUM_PLACES = {}


def _enum_place(cls):
    """(module, dotted name in it) of enumeration `cls` (``Operator`` of
    ``BinaryOperation``, whose own name does not find it), or None."""
    if cls not in _ENUM_PLACES:
        module = sys.modules.get(cls.__module__)
        found = None
        if module is not None:
            if _attribute(module, cls.__qualname__) is cls:
                found = cls.__qualname__
            else:
                for name, value in list(vars(module).items()):
                    if isinstance(value, type) and getattr(value, cls.__name__, None) is cls:
                        found = f"{name}.{cls.__name__}"
                        break
        _ENUM_PLACES[cls] = (cls.__module__, found) if found else None
    return _ENUM_PLACES[cls]


def _attribute(owner, dotted):
    for part in dotted.split("."):
        owner = getattr(owner, part, None)
    return owner


def _enum_member(module, dotted, name):
    """The member `name` of the enumeration `dotted` of `module` (unpickling)."""
    import importlib
    return _attribute(importlib.import_module(module), dotted)[name]


def _call_state(call, state):
    """Set the state of a call (unpickling), keying its argument names by
    the ids of its arguments (-1, no id: a name of an argument it lost)."""
    state["_argument_names"] = [(-1 if argument is None else id(argument), name)
                                for argument, name in state["_argument_names"]]
    call.__dict__.update(state)


def _children_list(cls, state, children):
    """A node's list of children (unpickling): its node first, then the
    children, as they were (validated when they were added)."""
    made = list.__new__(cls)
    made.__dict__.update(state)
    list.extend(made, children)
    return made


@contextlib.contextmanager
def using(directory):
    """Use the cache in `directory` (None: no cache) for the block; yields
    the :class:`Cache` or None."""
    global _active, last
    outer = _active
    _active = Cache(directory) if directory else None
    last = _active or last
    try:
        yield _active
    finally:
        _active = outer


def parse_tree(text, free_form, parse):
    """``parse()``, through the cache of the run if there is one."""
    if _active is None:
        return parse()
    return _active.parse_tree(text, free_form, parse)


def psyir(text, free_form, parse, build, variant=()):
    """``build(parse())``, the PSyIR of `text`, through the cache of the
    run if there is one (`variant`: see :meth:`Cache.psyir`)."""
    if _active is None:
        return build(parse())
    return _active.psyir(text, free_form, parse, build, variant)
