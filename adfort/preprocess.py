"""From the user's file to the text adfort parses: the C preprocessor for
``.F``/``.F90``… sources and Fortran INCLUDE lines, with a map from every
line of the result back to the user's ``file:line``."""

import dataclasses
import os
import re
import shutil

from adfort.errors import AdfortError

# Suffixes compilers run through the C preprocessor (capital letters, as
# gfortran does, and .fpp in either case).
PREPROCESSED_SUFFIXES = {".F", ".FOR", ".FTN", ".F77", ".FPP", ".fpp", ".F90", ".F95",
                         ".F03", ".F08"}


@dataclasses.dataclass
class Preprocessing:
    """How sources are preprocessed: the compiler's ``-D``, ``-U`` and ``-I``.

    :param defines: ``NAME`` or ``NAME=VALUE`` macros (``-D``).
    :param undefines: macro names (``-U``).
    :param include_dirs: directories searched by ``#include`` and INCLUDE
        (``-I``), after the including file's own directory.
    :param force: run the C preprocessor whatever the suffix (``--cpp``).
    :param form: ``"free"`` or ``"fixed"``: the source form of every file,
        whatever its suffix (``--free-form``/``--fixed-form``, gfortran's
        ``-ffree-form``/``-ffixed-form``); None: decided per file (see
        :func:`adfort.reading.source_form`).
    :param checkpoints: (routine, loop, :class:`adfort.checkpoint_loops.Checkpoint`)
        of ``--checkpoint``: loops checkpointed as if they had the directive.
    """

    defines: tuple = ()
    undefines: tuple = ()
    include_dirs: tuple = ()
    force: bool = False
    form: str = None
    checkpoints: tuple = ()

    def __post_init__(self):
        self.defines = tuple(self.defines or ())
        self.undefines = tuple(self.undefines or ())
        self.include_dirs = tuple(self.include_dirs or ())
        for define in self.defines:
            if not re.fullmatch(r"[A-Za-z_]\w*(=.*)?", define, re.DOTALL):
                raise AdfortError(f"-D '{define}': write -D NAME or -D NAME=VALUE")
        for name in self.undefines:
            if not re.fullmatch(r"[A-Za-z_]\w*", name):
                raise AdfortError(f"-U '{name}': write -U NAME")
        if self.form not in (None, "free", "fixed"):
            raise ValueError(f"form must be 'free', 'fixed' or None, not {self.form!r}")


def is_preprocessed(path, preprocessing=None):
    """Whether compilers would run `path` through the C preprocessor."""
    return bool(preprocessing and preprocessing.force) or \
        os.path.splitext(path)[1] in PREPROCESSED_SUFFIXES


def check_no_directives(path, source):
    """Reject preprocessor directives in a file that is not preprocessed.

    :raises AdfortError: at the first ``#`` line, saying how to have it
        preprocessed.
    """
    for number, line in enumerate(source.splitlines(), start=1):
        if line.startswith("#"):
            stem, suffix = os.path.splitext(os.path.basename(path))
            raise AdfortError(
                f"preprocessor directive in a '{suffix}' file, which compilers do not "
                f"preprocess: rename it '{stem}{suffix.upper()}' or pass --cpp "
                "(with -D/-U/-I as for the compiler)", f"{path}:{number}")


def run_cpp(path, preprocessing):
    """The C-preprocessed text of `path` and the origin of each of its lines.

    gfortran's preprocessor runs in traditional mode, as for compiling
    Fortran (apostrophes in comments, ``//`` are left alone); its line
    markers give each line's file and line.

    :returns: (text, origin): origin holds one (file, line) per line.
    :raises AdfortError: for a preprocessing error (``#error``, a missing
        include…), naming its file:line.
    """
    import subprocess   # (only for preprocessed sources)
    command = _cpp_command(path, preprocessing)
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False,
                              encoding="utf-8", errors="surrogateescape")
    except OSError as err:
        raise AdfortError(f"cannot run the C preprocessor '{command[0]}': "
                          f"{err.strerror}") from None
    if done.returncode != 0:
        raise _cpp_error(path, done.stderr)
    return _follow_markers(done.stdout, path)


def _cpp_command(path, preprocessing):
    flags = [f"-D{d}" for d in preprocessing.defines] + \
        [f"-U{u}" for u in preprocessing.undefines] + \
        [f"-I{d}" for d in preprocessing.include_dirs]
    compiler = shutil.which("gfortran")
    if compiler:
        # -x f95-cpp-input: preprocess whatever the suffix (--cpp).
        return [compiler, "-E", "-cpp", "-x", "f95-cpp-input", *flags, path]
    cpp = shutil.which("cpp")
    if cpp is None:
        raise AdfortError("no C preprocessor found: install gfortran (or cpp) to "
                          "read preprocessed sources")
    return [cpp, "-traditional-cpp", "-w", "-nostdinc", *flags, path]


_MARKER = re.compile(r'^#\s*(?:line\s+)?(\d+)\s+"((?:[^"\\]|\\.)*)"')


def _follow_markers(text, path):
    from adfort.reading import note_read
    lines, origin, files = [], [], set()
    where_, number = path, 1
    for line in text.splitlines():
        marker = _MARKER.match(line)
        if marker:
            where_, number = marker.group(2).replace('\\"', '"'), int(marker.group(1))
            if not where_.startswith("<"):
                files.add(where_)   # (an #include'd file of macros only adds no line)
            continue
        if where_.startswith("<"):  # <built-in>, <command-line>
            continue
        lines.append(line)
        origin.append((where_, number))
        number += 1
    note_read(files)
    return "".join(line + "\n" for line in lines), origin


_CPP_LOCATION = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?:\d+:)?\s*(?P<rest>.*)$")
_CPP_ERROR = re.compile(r"(?:^|:\s*)(?:fatal\s+)?error:\s*(?P<message>.*)$", re.IGNORECASE)


def _cpp_error(path, stderr):
    """An AdfortError from the preprocessor's complaint (gfortran's
    ``file:line:col:`` then ``Error: …``, or cpp's one-line form)."""
    location, message = path, None
    for line in stderr.splitlines():
        found = _CPP_LOCATION.match(line)
        if found and location == path:
            location = f"{found.group('file')}:{found.group('line')}"
        error = _CPP_ERROR.search(line)
        if error and message is None:
            message = error.group("message").strip()
    if not message:
        message = (stderr.strip().splitlines() or ["failed"])[-1]
    missing = re.match(r"(.+?): No such file or directory", message)
    if missing:
        # The preprocessor names the line after the directive.
        location = _include_directive(location, missing.group(1)) or location
        return AdfortError(f"#include file '{missing.group(1)}' not found in the "
                           "including file's directory nor in any -I directory: "
                           "add -I DIR", location)
    if message.startswith("#error"):
        return AdfortError(f"the preprocessor stopped at '{message}': check the -D/-U "
                           "flags", location)
    return AdfortError(f"the C preprocessor failed: {message}", location)


def _include_directive(location, name):
    """``file:line`` of the ``#include`` naming `name` at or before `location`."""
    filename, _, line = location.rpartition(":")
    try:
        with open(filename, encoding="utf-8", errors="surrogateescape") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    pattern = re.compile(r'^\s*#\s*include\s*["<]' + re.escape(name) + r'[">]')
    for number in range(min(int(line), len(lines)), 0, -1):
        if pattern.match(lines[number - 1]):
            return f"{filename}:{number}"
    return None


_INCLUDE = re.compile(r"""^(?P<lead>\s*)include\s*(?P<q>['"])(?P<name>[^'"]+)(?P=q)\s*(?:!.*)?$""",
                      re.IGNORECASE)


def expand_includes(text, origin, include_dirs=(), fixed_form=False, depth=0):
    """Replace Fortran INCLUDE lines by the lines of the files they name.

    A file is searched in the including file's directory, then in
    `include_dirs`; it is read in the including file's source form, and may
    include others.

    :param origin: (file, line) of each line of `text`.
    :returns: (text, origin) of the expanded text.
    :raises AdfortError: for an INCLUDE whose file is not found (naming the
        INCLUDE line) or a cycle of includes.
    """
    lines = text.splitlines()
    if not any("include" in line.lower() for line in lines):
        return text, origin
    out, out_origin = [], []
    for line, where_ in zip(lines, origin):
        code = line[6:] if fixed_form and len(line) > 6 and line[:1] not in "cC*!" \
            and line[:5].strip() == "" and line[5:6] in (" ", "0") else \
            (line if not fixed_form else None)
        found = _INCLUDE.match(code) if code is not None else None
        if not found:
            out.append(line)
            out_origin.append(where_)
            continue
        name = found.group("name")
        location = "%s:%s" % where_
        if name.lower() == MPI_HEADER:
            # MPI's header: its constants are the mpi module's, which adfort
            # knows (adfort.mpi_rules); read as `use mpi` in the unit.
            _use_mpi(out, out_origin, where_, fixed_form, location)
            continue
        if depth > 20:
            raise AdfortError(f"INCLUDE '{name}': includes nested more than 20 deep "
                              "(does a file include itself?)", location)
        included = _find_include(name, where_[0], include_dirs)
        if included is None:
            raise AdfortError(f"INCLUDE file '{name}' not found in the including file's "
                              "directory nor in any -I directory: add -I DIR", location)
        try:
            with open(included, encoding="utf-8", errors="surrogateescape") as handle:
                body = handle.read()
        except OSError as err:
            raise AdfortError(f"cannot read INCLUDE file '{included}': {err.strerror}",
                              location) from None
        body_lines = body.splitlines()
        body_text, body_origin = expand_includes(
            "".join(b + "\n" for b in body_lines),
            [(included, n) for n in range(1, len(body_lines) + 1)],
            include_dirs, fixed_form, depth + 1)
        out.extend(body_text.splitlines())
        out_origin.extend(body_origin)
    return "".join(line + "\n" for line in out), out_origin


MPI_HEADER = "mpif.h"
_UNIT_HEADER = re.compile(
    r"^\s*(?:(?:pure|impure|elemental|recursive|module)\s+)*"
    r"(?:(?:integer|real|double\s*precision|logical|complex|character|type\s*\(\s*\w+\s*\))"
    r"(?:\s*\*\s*\d+|\s*\([^)]*\))?\s+)?"
    r"(?:subroutine|function)\s+\w+|^\s*program\s+\w+|^\s*module\s+(?!procedure\b)\w+\s*$"
    r"|^\s*block\s*data\b", re.IGNORECASE)


def _code(line, fixed_form):
    """The statement part of a line (None for a comment line)."""
    if fixed_form:
        if not line[:1] or line[:1] in "cC*!" or line.strip().startswith("!"):
            return None if line.strip() else None
        return line[6:] if len(line) > 6 else ""
    stripped = line.split("!", 1)[0]
    return stripped if stripped.strip() else None


def _continued(line, next_line, fixed_form):
    """Whether the statement on `line` goes on to `next_line`."""
    if fixed_form:
        return (next_line is not None and len(next_line) > 5 and next_line[:1] not in "cC*!"
                and next_line[:5].strip() == "" and next_line[5] not in " 0")
    code = _code(line, False)
    return code is not None and code.rstrip().endswith("&")


def _use_mpi(out, out_origin, where_, fixed_form, location):
    """Put ``use mpi`` right after the header of the program unit whose
    INCLUDE 'mpif.h' is at `where_` (`out`: the lines before it)."""
    for index in range(len(out) - 1, -1, -1):
        code = _code(out[index], fixed_form)
        if code is None or not _UNIT_HEADER.match(code):
            continue
        if re.match(r"\s*module\b", code, re.IGNORECASE):
            # Its constants would be the module's own, which the generated
            # module also sees from MPI's module: ambiguous names.
            raise AdfortError(
                "INCLUDE 'mpif.h' in the specification of a module: adfort reads MPI "
                "code through the mpi module; include mpif.h in the routines that "
                "communicate, or 'use mpi' in the module", location)
        end = index
        while end + 1 < len(out) and (_continued(out[end], out[end + 1], fixed_form)
                                      or _code(out[end + 1], fixed_form) is None
                                      and end + 2 < len(out)
                                      and _continued(out[end], out[end + 2], fixed_form)):
            end += 1
        out.insert(end + 1, "      use mpi" if fixed_form else "use mpi")
        out_origin.insert(end + 1, where_)
        return
    raise AdfortError("INCLUDE 'mpif.h' outside a program unit adfort can find the start "
                      "of: include it in the routine's declarations", location)


def _find_include(name, including, include_dirs):
    if os.path.isabs(name):
        return name if os.path.isfile(name) else None
    for directory in [os.path.dirname(including)] + list(include_dirs):
        candidate = os.path.join(directory, name) if directory else name
        if os.path.isfile(candidate):
            return candidate
    return None


def load_source(path, source, fixed_form, preprocessing=None):
    """The text to parse for `path` (its contents `source`): preprocessed
    if compilers would preprocess it, INCLUDE lines expanded.

    :param fixed_form: whether it is fixed form, or a function giving that
        from the preprocessed text (before INCLUDE lines are expanded).
    :returns: (text, origin, fixed_form): origin holds one (file, line) of
        the user's sources per line of text, or is None when the lines are
        the file's.
    :raises AdfortError: for directives in a file not preprocessed, and
        for preprocessing or INCLUDE errors.
    """
    preprocessing = preprocessing or Preprocessing()
    origin = None
    if is_preprocessed(path, preprocessing):
        source, origin = run_cpp(path, preprocessing)
    else:
        check_no_directives(path, source)
    if callable(fixed_form):
        fixed_form = fixed_form(source)
    if re.search(r"^[^!\n]*\binclude\s*['\"]", source, re.IGNORECASE | re.MULTILINE):
        lines = source.splitlines()
        source, origin = expand_includes(
            source, origin or [(path, n) for n in range(1, len(lines) + 1)],
            preprocessing.include_dirs, fixed_form)
    return source, origin, fixed_form
