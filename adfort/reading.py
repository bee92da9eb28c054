"""Read only what a differentiation needs.

Parsing into PSyIR costs about 5 ms a line; a model file holds hundreds of
routines of which one is differentiated.  A :class:`ReadPlan` scans the
files a run may read (:mod:`adfort.units`), follows from the target
routine every name its statements mention that is a routine or module of
those files (and the modules they use, found on the search path), and
gives each file the set of units to keep: the target's call tree, the
modules it uses (their whole specification parts) and the block data.
The rest is never parsed.

The closure over names is an over-approximation (a name that is both a
local variable and some other routine keeps that routine): it may read
more than needed, never less.  When a file cannot be scanned with
certainty the plan keeps all of it.
"""

import contextlib
import glob
import os
import re

from adfort import preprocess, units
from adfort.errors import AdfortError
from adfort.mpi_rules import stub_module
from adfort.fixed_blanks import join_split_names, space_keywords

_SOURCE_PATTERNS = ("*.f90", "*.F90", "*.f", "*.F", "*.for", "*.f95", "*.f03", "*.f08")
FIXED_FORM_SUFFIXES = {".f", ".for", ".f77", ".ftn", ".fpp"}
FREE_FORM_SUFFIXES = {".f90", ".f95", ".f03", ".f08"}


def is_fixed_form(path):
    """Whether `path` names a fixed-form source (``.f``, ``.F``, ``.for``…)."""
    return os.path.splitext(path)[1].lower() in FIXED_FORM_SUFFIXES


def source_form(path, text, form=None):
    """Whether `path` (its preprocessed `text`) is read as fixed form.

    This is the one place deciding it: as `form` says (``"free"`` or
    ``"fixed"``: ``--free-form``/``--fixed-form``, which override the
    suffix as gfortran's ``-ffree-form``/``-ffixed-form`` do), else as the
    suffix says, except that a fixed-form suffix on text that only free
    form can mean (WRF's and MPAS's ``.F`` files, compiled with
    ``-ffree-form``) is read as free form: a fixed-form read of it would
    fail anyway.
    """
    if form is not None:
        return form == "fixed"
    return is_fixed_form(path) and free_form_evidence(text) is None


def free_form_evidence(text, decisive=True):
    """(1-based line, what) of the first line of `text` that a fixed-form
    read cannot accept but free form can, or None.

    Decisive: code starting in columns 1-5 (the label field holds digits
    only; a ``c``, ``C``, ``*`` or ``d`` in column 1 makes a comment, so
    those lines tell nothing), or an ``&`` ending the code of a line
    within column 72 (columns 73 on are ignored: code written for both
    forms puts its ``&`` there).  With `decisive` False, code running past
    column 72 counts too (fixed form drops it: card sequence numbers, or
    free-form code).
    """
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line[:1] in "cC*dD#!" or line.lstrip().startswith("!") \
                or "\t" in line[:6]:
            continue
        label = line[:5].replace(" ", "")
        if label and not label.isdigit():
            return number, "code in columns 1-5"
        code = units.split_comment(line[:72])[0].rstrip()
        if len(code) > 6 and code.endswith("&") and code.count("'") % 2 == 0 \
                and code.count('"') % 2 == 0:
            return number, "an '&' continuation at the end of the line"
        if not decisive and len(units.split_comment(line)[0].rstrip()) > 72:
            return number, "code beyond column 72"
    return None


def fixed_form_columns(source):
    """Drop columns 73 and beyond of fixed-form statements, as compilers do
    (old sources keep card sequence numbers there), and make debugging lines
    (``D`` in column 1) comments, as gfortran's ``-fd-lines-as-comments``
    and other compilers' default: every later pass then reads them alike
    (gfortran refuses them without one of its ``-fd-lines-as-…`` options).
    Lines in tab format (a tab in the first six columns) are written out in
    columns first (:func:`_tab_format`)."""
    lines = []
    for line in source.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        if "\t" in body[:6] and body[:1] not in ("c", "C", "*", "!", "d", "D"):
            expanded = _tab_format(body)
            line, body = expanded + line[len(body):], expanded
        if body[:1] in ("d", "D"):
            line = "C" + line[1:]
        elif body[:1] not in ("c", "C", "*", "!") and len(body) > 72:
            line = body[:72] + line[len(body):]
        lines.append(line)
    return "".join(lines)


def _tab_format(body):
    """A fixed-form line in tab format (DEC's, which gfortran reads): a tab
    among the first six columns, after an optional label, starts the
    statement in column 7, or marks a continuation line when a digit 1-9
    follows it.  Written out in columns, as the other passes expect."""
    tab = body.index("\t")
    label, rest = body[:tab], body[tab + 1:]
    if label.strip(" 0123456789"):
        return body         # not a label before the tab: leave the line alone
    if rest[:1] in tuple("123456789"):
        return label.ljust(5) + rest
    return label.ljust(6) + rest


def form_hint(path, loaded):
    """What to add to the message of a failed read of `path`: a file read
    as fixed form by its suffix whose text looks free form (only weakly,
    or it would have been read so) is named with the line that shows it;
    a file read in the form an option forced, other than its suffix's,
    says so (a valid fixed-form file read with --free-form fails at its
    first comment or continuation)."""
    if loaded.form is not None:
        suffix = os.path.splitext(path)[1]
        known = suffix.lower() in FIXED_FORM_SUFFIXES | FREE_FORM_SUFFIXES
        natural = "fixed" if source_form(path, loaded.raw) else "free"
        if known and natural == loaded.form:
            return ""
        return (f"; '{path}' was read as {loaded.form} form because of "
                f"--{loaded.form}-form"
                + (f" (its suffix '{suffix}' means {natural} form)" if known else ""))
    if not loaded.fixed:
        return ""
    found = free_form_evidence(loaded.raw, decisive=False)
    if found is None:
        return ""
    number, what = found
    place = "%s:%s" % loaded.origin[number - 1] if loaded.origin and \
        number <= len(loaded.origin) and loaded.origin[number - 1] else f"{path}:{number}"
    return (f"; '{path}' is read as fixed form (its suffix) but looks like free-form "
            f"source ({what} at {place}): pass --free-form")


class Loaded:
    """A source as compilers would read it.

    :ivar source: the text (preprocessed, INCLUDE lines expanded, fixed-form
        columns beyond 72 dropped).
    :ivar origin: (file, line) of the user's sources per line, or None.
    :ivar fixed: whether it is fixed form.
    :ivar raw: the preprocessed text before the columns were dropped (for
        the ``!$adfort`` directives).
    :ivar form: the form the user gave (``"free"``, ``"fixed"``) or None.
    """

    def __init__(self, source, origin, fixed, raw, form=None):
        self.source, self.origin, self.fixed, self.raw = source, origin, fixed, raw
        self.form = form


_recorders = []     # the sets of recording() blocks running


@contextlib.contextmanager
def recording():
    """Within the block, the real paths (:func:`os.path.realpath`) of every
    source file read as input (those differentiated or called, modules
    found on the search path, INCLUDE'd and ``#include``'d files) are
    added to the set it yields: what an output file must not replace."""
    found = set()
    _recorders.append(found)
    try:
        yield found
    finally:
        _recorders.remove(found)


def note_read(paths):
    if _recorders:
        real = {os.path.realpath(p) for p in paths if p}
        for found in _recorders:
            found.update(real)


def load(path, preprocessing=None):
    """Read and preprocess `path`.

    :raises AdfortError: if the file is missing, unreadable, of unknown form,
        or its preprocessing fails.
    """
    if not os.path.isfile(path):
        raise AdfortError(f"no such file: '{path}'")
    suffix = os.path.splitext(path)[1].lower()
    form = getattr(preprocessing, "form", None)
    if suffix not in FIXED_FORM_SUFFIXES | FREE_FORM_SUFFIXES and form is None:
        raise AdfortError(
            f"cannot tell the source form of '{path}' from its suffix "
            f"'{suffix}': use .f90/.F90 for free form or .f/.F/.for for fixed form, "
            "or pass --free-form or --fixed-form")
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            source = handle.read()
    except OSError as err:
        raise AdfortError(f"cannot read '{path}': {err.strerror}") from None
    if source.startswith("\ufeff"):
        source = source[1:]     # a byte-order mark, which compilers skip
    # One (file, line) of the user's sources per line of the text parsed
    # (None: lines unchanged); rewrites that add or move lines extend it.
    note_read([path])
    raw, origin, fixed = preprocess.load_source(
        path, source, lambda text: source_form(path, text, form), preprocessing)
    if origin:
        note_read({where[0] for where in origin if where})
    columns = join_split_names(space_keywords(fixed_form_columns(raw))) if fixed else raw
    return Loaded(columns, origin, fixed, raw, form)


class ReadPlan:
    """Which units of which files a differentiation reads.

    :param preprocessing: how sources are preprocessed
        (:class:`adfort.preprocess.Preprocessing`).
    :param search_path: directories where used modules are looked for.
    :param shared: a plan whose loaded and scanned sources this one reuses
        (several routines of one run).
    """

    def __init__(self, preprocessing=None, search_path=(), shared=None):
        self.preprocessing = preprocessing
        self.search_path = list(search_path)
        self._loaded = shared._loaded if shared is not None else {}  # path: Loaded
        self._scans = shared._scans if shared is not None else {}    # path: Scan or None
        self._keep = {}     # path: set of id(Unit) kept, or None for all
        # path: names of the routines copied for the routines passed to them
        self.clones = shared.clones if shared is not None else {}

    def specialise(self, paths):
        """Copy the routines that take routines as arguments for the
        routines the sources pass them (:mod:`adfort.specialise`), in the
        loaded texts of `paths`, before anything is scanned for a plan."""
        from adfort.specialise import Specialiser
        loaded = {os.path.abspath(p): self.loaded(p) for p in paths}
        specialiser = Specialiser(loaded)
        made = specialiser.run()
        for path, names in made.items():
            self.clones.setdefault(path, set()).update(names)
            self._scans.pop(path, None)
        for path, found in specialiser.scans.items():
            self._scans.setdefault(path, found)     # (scanned already, unchanged)

    def loaded(self, path):
        """The :class:`Loaded` source of `path`, read once."""
        key = os.path.abspath(path)
        if key not in self._loaded:
            self._loaded[key] = load(path, self.preprocessing)
        return self._loaded[key]

    def scan(self, path):
        """The :class:`adfort.units.Scan` of `path`, or None."""
        key = os.path.abspath(path)
        if key not in self._scans:
            loaded = self.loaded(path)
            self._scans[key] = units.scan(loaded.source, loaded.fixed)
        return self._scans[key]

    def choose(self, path, wanted):
        """The one routine of `path` whose interface (arguments, function
        result) holds all of `wanted`, or None when the scan cannot tell
        (then the whole file is read and :func:`adfort.api.choose_routine`
        explains)."""
        found = self.scan(path)
        if found is None or not wanted:
            return None
        wanted = {w.lower() for w in wanted}
        candidates = []
        for unit in found.units:
            if unit.kind in ("subroutine", "function"):
                names = set(unit.arguments) | ({unit.result} if unit.result else set())
                if wanted <= names:
                    candidates.append(unit)
            for _, arguments, result in unit.inner:
                if wanted <= set(arguments) | ({result} if result else set()):
                    return None
        return candidates[0].name if len(candidates) == 1 else None

    def plan(self, path, routine, extra_files=(), modules=()):
        """Decide what to read for differentiating `routine` of `path`.

        :param extra_files: further files the program may call into.
        :param modules: names of modules that must be read whole in
            specification (those of ``module::variable`` dependents).
        """
        paths = [path] + list(extra_files)
        scans = {p: self.scan(p) for p in paths}
        if any(s is None for s in scans.values()):
            return
        by_name = {}        # name: [(path, Unit)] routines, modules, entries
        for p, found in scans.items():
            self._index(p, found, by_name)
        target = [(p, u) for p, u in by_name.get(routine.lower(), ())
                  if p == path and u.kind != "module"]
        if len(target) != 1:
            return
        kept = {p: set() for p in paths}
        work = list(target) + [(p, u) for name in modules
                               for p, u in by_name.get(name.lower(), ())
                               if u.kind == "module"]
        for p, found in scans.items():
            work.extend((p, u) for u in found.units if u.kind == "blockdata")
        # A unit's names are looked up when it is taken; a module its host
        # uses may be indexed (found on the search path) only later, so the
        # closure is taken again over what it kept until no file is added.
        while True:
            indexed = sum(map(len, by_name.values()))
            seen = {p: set() for p in kept}
            while work:
                p, unit = work.pop()
                if id(unit) in seen.setdefault(p, set()):
                    continue
                seen[p].add(id(unit))
                kept.setdefault(p, set()).add(id(unit))
                if unit.module:
                    work.extend(x for x in by_name.get(unit.module, ()) if x[1].kind == "module")
                for name in sorted(unit.uses - set(by_name)):
                    if not self._find_module(name, by_name):
                        return      # a module adfort cannot scan: read all
                for name in sorted(unit.names | unit.uses):
                    work.extend(by_name.get(name, ()))
            if sum(map(len, by_name.values())) == indexed:
                break
            units_of = {id(u): (p, u) for entries in by_name.values() for p, u in entries}
            work = [units_of[i] for ids in kept.values() for i in ids if i in units_of]
        for p, ids in kept.items():
            self._keep[os.path.abspath(p)] = ids

    def module_scan(self, name):
        """(module :class:`units.Unit`, names of its procedures) of module
        `name` in a file scanned, or found on the search path; None when
        adfort cannot see it (what implicit typing needs of a USE)."""
        name = name.lower()
        for _ in range(2):
            for found in list(self._scans.values()):
                for unit in found.units if found is not None else ():
                    if unit.kind == "module" and unit.name == name:
                        return unit, {u.name for u in found.units if u.module == name}
            path = find_module_file(name, self.search_path, self.preprocessing)
            if path is None or os.path.abspath(path) in self._scans or self.scan(path) is None:
                return None
        return None

    def _index(self, path, found, by_name):
        for unit in found.units:
            for name in [unit.name] + unit.entries:
                if name:
                    by_name.setdefault(name, []).append((path, unit))

    def _find_module(self, name, by_name):
        """Scan the file of module `name` on the search path (if any) into
        `by_name`; False when that file cannot be scanned."""
        path = find_module_file(name, self.search_path, self.preprocessing)
        if path is None:
            return True     # without source (an intrinsic module…)
        found = self.scan(path)
        if found is not None and not any(p == path for entries in by_name.values()
                                         for p, _ in entries):
            self._index(path, found, by_name)
        return found is not None

    def prune(self, path, loaded):
        """(source, dropped names by module, moved) of `path`: the planned
        units kept, the lines of the others left out; `moved` gives the
        line of the loaded text each line of the source was (None when
        nothing is left out), so that messages name the file's lines.
        fparser reads every line it is given, empty or not: a file of
        200 routines given whole for one of them cost a tenth of the run.

        :returns: the text as loaded when the plan keeps the whole file.
        """
        key = os.path.abspath(path)
        keep = self._keep.get(key)
        found = self._scans.get(key)
        if keep is None or found is None:
            return loaded.source, {}, None
        dropped = [u for u in found.units if id(u) not in keep]
        if not dropped:
            return loaded.source, {}, None
        left_out = set()
        names = {}
        for unit in dropped:
            left_out.update(range(unit.first, unit.last + 1))
            if unit.kind in ("subroutine", "function") and unit.name:
                names.setdefault(unit.module, set()).add(unit.name)
        kept = [number for number in range(len(found.lines)) if number not in left_out]
        return "".join(found.lines[n] for n in kept), names, [(path, n + 1) for n in kept]


def find_module_file(name, search_path, preprocessing=None):
    """The first file on `search_path` that defines module `name`, or None.

    The files of the search path are read once (per run, and again only
    when one of them changes): :func:`_module_index`.  The MPI library's
    module, when the search path does not hold one, is adfort's own
    description of it (:mod:`adfort.mpi_rules`).

    :raises AdfortError: when two files of the first directory defining
        `name` both define it (which one a build compiles, adfort cannot
        tell); in different directories the first directory's wins, as
        compilers take the first ``-I`` directory holding the ``.mod``.
    """
    index, duplicates = _module_index(search_path, preprocessing)
    if name.lower() in duplicates:
        first, second = duplicates[name.lower()]
        raise AdfortError(
            f"module '{name.lower()}' is defined by two files of the same -I directory: "
            f"'{first}' and '{second}'; remove (or move out of the -I directories) the "
            "one your build does not compile")
    return index.get(name.lower()) or stub_module(name)


_MODULE_LINE = re.compile(r"^\s*module\s+(\w+)\s*(!.*)?$", re.IGNORECASE | re.MULTILINE)
_indexes = {}       # (file, mtime, size) of every file on a search path: index


def _module_names(path, text, preprocessing):
    """Lower-case names of the modules `text` (of `path`) defines: after
    the C preprocessor for a preprocessed file whose MODULE lines it may
    leave out (``#ifdef USE_B``), as the build compiles it."""
    from adfort.preprocess import is_preprocessed, run_cpp
    names = [m.group(1).lower() for m in _MODULE_LINE.finditer(text)]
    if names and is_preprocessed(path, preprocessing) and \
            re.search(r"^[ \t]*#[ \t]*if", text, re.MULTILINE):
        try:
            text, _ = run_cpp(path, preprocessing or preprocess.Preprocessing())
        except AdfortError:
            return names    # (the error shows when the file is read)
        names = [m.group(1).lower() for m in _MODULE_LINE.finditer(text)]
    return names


def _module_index(search_path, preprocessing=None):
    """({lower-case module name: the first file on `search_path` defining
    it}, {name: (file, other file)} of the modules two files of the
    directory where the name is first found define), remembered while the
    files (names, times, sizes) are the same."""
    files = []
    for directory in search_path:
        for glob_pattern in _SOURCE_PATTERNS:
            for path in sorted(glob.glob(os.path.join(directory, glob_pattern))):
                try:
                    status = os.stat(path)
                except OSError:
                    continue
                files.append((directory, path, status.st_mtime_ns, status.st_size))
    key = (tuple(files), getattr(preprocessing, "defines", ()),
           getattr(preprocessing, "undefines", ()), getattr(preprocessing, "force", False))
    if key not in _indexes:
        index, where, duplicates = {}, {}, {}
        seen = set()
        for directory, path, _, _ in files:
            real = os.path.realpath(path)
            if real in seen:    # (a directory given twice, a link to a file of it)
                continue
            seen.add(real)
            try:
                with open(path, encoding="utf-8", errors="surrogateescape") as handle:
                    text = handle.read()
            except OSError:
                continue
            folder = os.path.realpath(directory)
            for name in _module_names(path, text, preprocessing):
                if name not in index:
                    index[name], where[name] = path, folder
                elif where[name] == folder and index[name] != path \
                        and name not in duplicates:
                    duplicates[name] = (index[name], path)
        if len(_indexes) > 16:
            _indexes.clear()
        _indexes[key] = index, duplicates
    return _indexes[key]
