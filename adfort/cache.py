"""``--cache DIR``: what adfort learns of a source, kept across runs.

Parsing Fortran (fparser) is about half of reading a source into PSyIR.
With a cache directory, the parse tree of every text adfort parses (the
file given, extra files, the modules found with ``-I``, each as adfort
rewrote it and kept only what the run needs) is stored under the SHA-256
of that text, the source form and the versions of adfort, fparser and
PSyclone; a later run that parses the same text loads the tree instead.
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

_FORMAT = "adfort-parse-1"
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

    def _key(self, text, free_form):
        import hashlib      # (hashlib and pickle: only for runs with a cache)
        import fparser
        import psyclone
        versions = (_FORMAT, __version__, getattr(fparser, "__version__", "?"),
                    getattr(psyclone, "__version__", "?"), sys.version_info[:2],
                    "free" if free_form else "fixed")
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
        return tree if isinstance(tree, Base) else None

    def _store(self, path, tree):
        import pickle
        try:
            data = pickle.dumps(tree, protocol=pickle.HIGHEST_PROTOCOL)
        except (RecursionError, pickle.PicklingError, TypeError, AttributeError):
            return      # a tree pickle cannot hold: not cached
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
