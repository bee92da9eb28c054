"""Load sympy (and PSyclone's analysis tools) only if something uses them.

Importing PSyclone imports sympy (``psyclone.core.symbolic_maths`` at the
top, ``import sympy`` in a few node modules, the SymPy writer that every
``FortranWriter`` imports through ``psyclone.psyir.tools``): about 0.25 s
of the 0.6 s an ``adfort diff`` spent starting; and every
``FortranWriter`` imports ``psyclone.psyir.tools`` (psyGen, fparser's
first parser, pyparsing, unittest: 0.1 s) for a ``CallTreeUtils`` it never
uses.  adfort never does symbolic maths on its own path, so before
PSyclone is imported :func:`install` puts in ``sys.modules``

- for ``sympy`` and ``psyclone.psyir.tools``, packages that load the real
  ones at the first access to an attribute they lack (``import sympy``
  binds it; ``sympy.Symbol`` loads sympy and is sympy's; so does
  importing a submodule, which asks for ``__path__``);
- for ``psyclone.core.symbolic_maths``, ``psyclone.psyir.backend.sympy_writer``
  and ``psyclone.psyir.tools.call_tree_utils``, stand-ins whose classes
  (``SymbolicMaths``, ``SymPyWriter``, ``CallTreeUtils``…) hand every
  attribute (``get``, ``equal``, ``Fuzzy``…) and every call to the real
  class, importing the real module (and sympy) the first time; except
  that ``SymbolicMaths.equal`` answers plain cases itself
  (:func:`plain_equal`), and that a ``CallTreeUtils`` is made when first
  used.

PSyclone's front end handles every WHERE with
``from psyclone.psyir.transformations import Reference2ArrayRangeTrans``:
the whole package, fifty transformations (0.15 s), for one.  Its
stand-in gives the names PSyclone's readers take from it (``_SUBMODULE``)
from their own modules, and anything else from the real package.

Two more imports of no use to adfort are put off: ``graphviz``, which
PSyIR's node module imports for drawing trees (a stand-in package as for
sympy), and ``importlib.metadata`` (with ``email``, ``zipfile``…), which
fparser imports to find its own version: :func:`install` imports fparser
with a ``version`` that reads it from fparser's ``dist-info`` directly.
Nor is PSyclone's module manager (``psyclone.parse``), which its
configuration, loaded at the first parse, only tells which modules to
ignore: ``ModuleManager.get()`` of the stand-in notes them, and gives them
to the real manager as soon as anything else is asked of it.

Nothing changes for code that does use them: it only pays the import
later.  Whether sympy was really loaded: :func:`sympy_loaded`.
"""

import importlib
import importlib.util
import keyword
import os
import sys
import types

_PYTHON_KEYWORDS = frozenset(keyword.kwlist)

# Modules deferred: the names other modules take from them, as stand-ins.
_DEFERRED = {
    "psyclone.core.symbolic_maths": ("SymbolicMaths",),
    "psyclone.psyir.backend.sympy_writer": ("SymPyWriter",),
    "psyclone.psyir.tools": ("CallTreeUtils", "DefinitionUseChain", "DTCode",
                             "DependencyTools", "ReadWriteInfo", "ReductionInferenceTool"),
    "psyclone.psyir.tools.call_tree_utils": ("CallTreeUtils",),
    # Imported inside node methods for isinstance checks and errors: the
    # 0.1 s of psyGen's imports for a check that cannot hold without it.
    "psyclone.psyGen": ("Kern", "CodedKern", "InvokeSchedule", "BuiltIn"),
    # psyGen itself, when it is needed (Reference2ArrayRangeTrans is a
    # psyGen.Transformation), names these only in isinstance checks: not
    # the kernel parser (fparser's first parser, pyparsing: 0.05 s).
    "psyclone.parse.algorithm": ("BuiltInCall", "KernelCall"),
    # PSyclone's configuration tells the module manager which modules to
    # ignore when it loads: 8 ms of imports (hashlib, pickle, difflib…) for
    # a manager only the search for a module's source uses.
    "psyclone.parse": ("ModuleManager",),
}
# Attributes of a stand-in that are another module's (exceptions must be
# real classes to be caught).
_PRESET = {"psyclone.psyGen": {"InternalError": "psyclone.errors",
                               "GenerationError": "psyclone.errors"}}
_PACKAGES = ("sympy", "psyclone.psyir.tools", "psyclone.psyir.transformations", "graphviz",
             "psyclone.parse")
# Packages whose submodules may be imported alone (their __path__ is given
# without loading the package): psyclone.psyir.tools.type_info_computation,
# which every BinaryOperation's datatype imports, needs nothing else.
_OPEN_PACKAGES = ("psyclone.psyir.tools", "psyclone.psyir.transformations",
                  "psyclone.parse")
# Names a stand-in package takes from one of its submodules, loaded when
# first asked for (not the whole package).
_SUBMODULE = {"psyclone.psyir.transformations": {
    "Reference2ArrayRangeTrans": "reference2arrayrange_trans",
    "TransformationError": "transformation_error"}}
# Classes whose instances are made when first used (FortranWriter makes a
# CallTreeUtils it never uses).
_LAZY_INSTANCES = ("CallTreeUtils",)


def _real(name):
    """The real module `name`, imported the first time it is asked for
    (with the real modules of the stand-ins below it)."""
    module = sys.modules.get(name)
    if isinstance(module, _StandIn):
        for other in list(sys.modules):
            if (other == name or other.startswith(name + ".")) and \
                    isinstance(sys.modules[other], _StandIn):
                del sys.modules[other]
        module = importlib.import_module(name)
        package, _, last = name.rpartition(".")
        if package in sys.modules:
            setattr(sys.modules[package], last, module)
    return module


class _StandIn(types.ModuleType):
    """A module until something needs the real one: every attribute it
    lacks (``__path__`` too, for a submodule's import) is the real one's."""

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__") and (
                name != "__path__" or self.__name__ not in _PACKAGES):
            raise AttributeError(name)
        submodule = _SUBMODULE.get(self.__name__, {}).get(name)
        if submodule is not None:
            value = getattr(importlib.import_module(f"{self.__name__}.{submodule}"), name)
            setattr(self, name, value)
            return value
        return getattr(_real(self.__name__), name)


class _Forwarding(type):
    """Metaclass of a stand-in class: every attribute the class lacks is
    the real class's, and calling it makes an instance of the real one."""

    def __getattr__(cls, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return getattr(cls._adfort_real(), name)

    def __instancecheck__(cls, instance):
        # An instance of the real class needs the real module imported.
        real = sys.modules.get(cls.__module__)
        return real is not None and not isinstance(real, _StandIn) and \
            isinstance(instance, cls._adfort_real())

    def __subclasscheck__(cls, subclass):
        real = sys.modules.get(cls.__module__)
        return real is not None and not isinstance(real, _StandIn) and \
            issubclass(subclass, cls._adfort_real())

    def __call__(cls, *args, **kwargs):
        if cls.__name__ in _LAZY_INSTANCES:
            return _LazyInstance(lambda: cls._adfort_real()(*args, **kwargs))
        return cls._adfort_real()(*args, **kwargs)


class _LazyInstance:
    """An instance made when first used (an attribute asked for or set)."""

    def __init__(self, make):
        object.__setattr__(self, "_adfort_make", make)
        object.__setattr__(self, "_adfort_made", None)

    def _adfort_instance(self):
        made = object.__getattribute__(self, "_adfort_made")
        if made is None:
            made = object.__getattribute__(self, "_adfort_make")()
            object.__setattr__(self, "_adfort_made", made)
        return made

    def __getattr__(self, name):
        return getattr(self._adfort_instance(), name)

    def __setattr__(self, name, value):
        setattr(self._adfort_instance(), name, value)


class _PendingManager:
    """``ModuleManager.get()`` before the module manager is loaded: it
    notes the modules to ignore (all the configuration tells it) and hands
    them to the real manager when something else is asked of it."""

    def __init__(self):
        object.__setattr__(self, "_adfort_ignored", [])

    def add_ignore_module(self, name):
        if "psyclone.parse.module_manager" in sys.modules:
            _real_manager().add_ignore_module(name)
        else:
            self._adfort_ignored.append(name)

    def __getattr__(self, name):
        return getattr(_real_manager(), name)

    def __setattr__(self, name, value):
        setattr(_real_manager(), name, value)


_PENDING_MANAGER = _PendingManager()


def _real_manager():
    """The real ``ModuleManager.get()``, told the modules noted before."""
    manager = _real("psyclone.parse").ModuleManager.get()
    ignored = _PENDING_MANAGER._adfort_ignored
    while ignored:
        manager.add_ignore_module(ignored.pop(0))
    return manager


def _manager():
    """``ModuleManager.get`` of the stand-in."""
    if "psyclone.parse.module_manager" in sys.modules:
        return _real_manager()
    return _PENDING_MANAGER


def _stand_in_class(module, name):
    def real():
        return getattr(_real(module), name)
    return _Forwarding(name, (), {"_adfort_real": staticmethod(real),
                                  "__module__": module,
                                  "__doc__": f"Stand-in for {module}.{name} (adfort.lazy)."})


def _integer_literals_only(node):
    """Whether every Literal in expression `node` is an integer (sympy's
    difference of equal real literals is a Float zero, not Zero: not
    'equal')."""
    from psyclone.psyir.nodes import CodeBlock, Literal
    from psyclone.psyir.symbols import ScalarType
    for inner in node.walk((Literal, CodeBlock)):
        if isinstance(inner, CodeBlock) or not isinstance(inner.datatype, ScalarType) or \
                inner.datatype.intrinsic != ScalarType.Intrinsic.INTEGER:
            return False
    return True


def _polynomial(node):
    """{monomial: coefficient} of expression `node` when it is a polynomial
    with integer coefficients in scalar variables (a monomial: the sorted
    tuple of its variables' names), else None."""
    from psyclone.psyir.nodes import BinaryOperation, Literal, Reference, UnaryOperation
    from psyclone.psyir.symbols import ScalarType
    if type(node) is Literal:
        if node.datatype.intrinsic != ScalarType.Intrinsic.INTEGER:
            return None
        try:
            value = int(node.value)
        except ValueError:
            return None
        return {(): value} if value else {}
    if type(node) is Reference:
        # (Names as PSyclone writes them for sympy: lower case, renamed only
        # if a Python keyword, which Fortran names cannot all be.)
        name = node.name
        return {(name,): 1} if name == name.lower() and name.isidentifier() and \
            name not in _PYTHON_KEYWORDS else None
    if type(node) is UnaryOperation and node.operator in (
            UnaryOperation.Operator.MINUS, UnaryOperation.Operator.PLUS):
        inner = _polynomial(node.children[0])
        if inner is None or node.operator == UnaryOperation.Operator.PLUS:
            return inner
        return {m: -c for m, c in inner.items()}
    if type(node) is not BinaryOperation:
        return None
    operator = node.operator
    if operator == BinaryOperation.Operator.POW:
        power = node.children[1]
        if type(power) is not Literal or not power.value.isdigit() or int(power.value) > 8:
            return None
        base = _polynomial(node.children[0])
        result = {(): 1}
        for _ in range(int(power.value)):
            result = None if base is None else _product(result, base)
        return result
    if operator not in (BinaryOperation.Operator.ADD, BinaryOperation.Operator.SUB,
                        BinaryOperation.Operator.MUL):
        return None
    left, right = _polynomial(node.children[0]), _polynomial(node.children[1])
    if left is None or right is None:
        return None
    if operator == BinaryOperation.Operator.MUL:
        return _product(left, right)
    sign = 1 if operator == BinaryOperation.Operator.ADD else -1
    result = dict(left)
    for monomial, coefficient in right.items():
        result[monomial] = result.get(monomial, 0) + sign * coefficient
    return {m: c for m, c in result.items() if c}


def _product(left, right):
    result = {}
    for m1, c1 in left.items():
        for m2, c2 in right.items():
            monomial = tuple(sorted(m1 + m2))
            result[monomial] = result.get(monomial, 0) + c1 * c2
    return {m: c for m, c in result.items() if c}


def plain_equal(exp1, exp2):
    """What ``SymbolicMaths.equal(exp1, exp2)`` answers, when it is plain
    without sympy, else None.  Plain: two polynomials with integer
    coefficients in scalar variables (sympy expands their difference:
    zero or not), or two expressions written the same way with integer
    literals only (their difference is zero).  Array bounds, which the
    Fortran writer compares for every range it writes (``a(1:n)`` of an
    ``a(0:n+1)``), are nearly always so."""
    from psyclone.psyir.nodes import Node
    if exp1 is None or exp2 is None:
        return exp1 == exp2
    if not isinstance(exp1, Node) or not isinstance(exp2, Node):
        return None
    first, second = _polynomial(exp1), _polynomial(exp2)
    if first is not None and second is not None:
        return first == second
    if exp1 == exp2 and _integer_literals_only(exp1):
        return True
    if _inquiry_or_extreme(exp1) or _inquiry_or_extreme(exp2):
        # The hull of sections (``MIN(nmax, MAX(nz, 1))``) or a shape
        # inquiry (``SIZE(a, dim=1)``) against a declared bound: sympy
        # cannot tell such different expressions equal either (it would
        # cost its import and most of a second), so the bound is written.
        return exp1 == exp2
    return None


def _inquiry_or_extreme(node):
    """Whether `node` holds a MIN, MAX or an array inquiry."""
    from psyclone.psyir.nodes import IntrinsicCall
    return any(call.intrinsic.name in ("MIN", "MAX", "SIZE", "LBOUND", "UBOUND")
               for call in node.walk(IntrinsicCall))


class _PlainMaths:
    """``SymbolicMaths.get()`` of the stand-in: :meth:`equal` answers plain
    cases without sympy; anything else is the real singleton's."""

    def equal(self, exp1, exp2, identical_variables=None):
        answer = None if identical_variables else plain_equal(exp1, exp2)
        if answer is None:
            try:
                return _real("psyclone.core.symbolic_maths").SymbolicMaths.get().equal(
                    exp1, exp2, identical_variables)
            except KeyError:
                # A name sympy's writer cannot find from the node's scope (a
                # module variable of a generated routine): not known equal,
                # so the writer spells the bound out.
                return False
        return answer

    def __getattr__(self, name):
        return getattr(_real("psyclone.core.symbolic_maths").SymbolicMaths.get(), name)


_PLAIN = _PlainMaths()


def _distribution_version(name):
    """The version of installed distribution `name` as
    ``importlib.metadata.version`` gives it: the ``Version`` of the
    metadata of the first ``<name>-<version>.dist-info`` on ``sys.path``;
    None when there is none (or its metadata cannot be read)."""
    prefix = name.lower().replace("-", "_") + "-"
    for entry in sys.path:
        try:
            found = sorted(f for f in os.listdir(entry or ".")
                           if f.lower().startswith(prefix) and f.endswith(".dist-info"))
        except OSError:
            continue
        for folder in found:
            try:
                with open(os.path.join(entry or ".", folder, "METADATA"),
                          encoding="utf-8") as handle:
                    for line in handle:
                        if line.startswith("Version:"):
                            return line.split(":", 1)[1].strip()
                        if not line.strip():
                            break
            except OSError:
                pass
            return None
    return None


def _import_fparser():
    """Import fparser without ``importlib.metadata`` (see the module)."""
    if "fparser" in sys.modules or "importlib.metadata" in sys.modules:
        return
    known = _distribution_version("fparser")
    if known is None:
        return      # fparser's own import finds it (or says it is missing)
    stand_in = types.ModuleType("importlib.metadata", "fparser's version (adfort.lazy)")

    def version(name):
        if name == "fparser":
            return known
        return _real_metadata().version(name)

    stand_in.version = version
    sys.modules["importlib.metadata"] = stand_in
    try:
        import fparser  # noqa: F401
    except ImportError:
        pass        # the import that needs fparser says it is missing
    finally:
        if sys.modules.get("importlib.metadata") is stand_in:
            del sys.modules["importlib.metadata"]


def _real_metadata():
    sys.modules.pop("importlib.metadata", None)
    return importlib.import_module("importlib.metadata")


def install():
    """Defer sympy (see the module); nothing to do once PSyclone or sympy
    is imported, or when sympy is missing."""
    if "psyclone" in sys.modules or "sympy" in sys.modules:
        return
    if importlib.util.find_spec("sympy") is None:
        return
    _import_fparser()
    for package in _PACKAGES:
        if package == "graphviz" and ("graphviz" in sys.modules or
                                      importlib.util.find_spec("graphviz") is None):
            continue
        stand_in = _StandIn(package, f"{package}, loaded when used (adfort.lazy)")
        if package in _OPEN_PACKAGES:
            # (Found from the top package's place: find_spec of a dotted
            # name would import its parents, PSyclone among them.)
            top, _, rest = package.partition(".")
            spec = importlib.util.find_spec(top)
            if spec is None:
                continue  # not installed: the import that needs it says so
            place = os.path.join(os.path.dirname(spec.origin or ""), *rest.split("."))
            if not os.path.isfile(os.path.join(place, "__init__.py")):
                continue
            stand_in.__path__ = [place]
        sys.modules[package] = stand_in
    for module, names in _DEFERRED.items():
        stand_in = sys.modules.get(module) or _StandIn(
            module, f"{module}, loaded when used (adfort.lazy)")
        for name in names:
            setattr(stand_in, name, _stand_in_class(module, name))
        for name, owner in _PRESET.get(module, {}).items():
            setattr(stand_in, name, getattr(importlib.import_module(owner), name))
        sys.modules[module] = stand_in
    sys.modules["psyclone.parse"].ModuleManager.get = staticmethod(_manager)
    maths = sys.modules["psyclone.core.symbolic_maths"].SymbolicMaths
    maths.get = staticmethod(lambda: _PLAIN)
    maths.equal = staticmethod(_PLAIN.equal)


def sympy_loaded():
    """Whether sympy has really been imported (not only deferred)."""
    return "sympy.core" in sys.modules
