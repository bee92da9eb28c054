"""State shared by the transformations of one routine."""

from psyclone.psyir.nodes import Reference
from psyclone.psyir.symbols import AutomaticInterface, DataSymbol

from psyclone.psyir.symbols import ArrayType

from adfort import naming
from adfort.derived import is_derived, is_real_value
from adfort.exprs import real_kind, real_type

DEFAULT_OPTIONS = {
    "jacobian": False,
    "verbose": False,
    "simplify": True,
    "simplify_n_times": 5,
    "inline_operation_adjoints": True,
    # Automatic arrays of generated routines as sections of one buffer
    # (adfort/transformations/work_arrays.py).
    "pool_work_arrays": True,
    # Arrays of rank > 1 go on and off the tapes through the tape module's
    # <tape>_put/_get; False: PACK/RESHAPE (for an adjoint differentiated
    # again, adfort/tangent/hvp.py, whose tangent mode reads them).
    "tape_copy_routines": True,
    # Short functions and subroutines inlined into their callers
    # (adfort/inlining.py).
    "inline": True,
    # r_rev reverses a last loop of independent iterations one iteration
    # at a time (adfort/iteration_reversal.py).
    "iteration_reversal": True,
    # Under joint links, callees whose recording tapes nothing are reversed
    # split (adfort/tapeless.py).
    "split_tapeless": True,
    # Components of derived types no value of which varies get no adjoint
    # terms (adfort/passive_components.py).
    "passive_components": True,
}


def checked_options(options):
    """Return `options` merged over the defaults, rejecting unknown keys."""
    options = dict(options or {})
    unknown = sorted(set(options) - set(DEFAULT_OPTIONS))
    if unknown:
        raise ValueError(f"unknown option(s) {', '.join(unknown)}; "
                         f"known: {', '.join(DEFAULT_OPTIONS)}")
    merged = dict(DEFAULT_OPTIONS)
    merged.update(options)
    if int(merged["simplify_n_times"]) < 0:
        raise ValueError("'simplify_n_times' must be >= 0")
    return merged


class ADContext:
    """What the statement transformations of one routine share.

    :param table: the symbol table of the working copy of the routine.
    :param active: lower-case names of the variables that need an adjoint.
    :param options: the checked transformation options.
    :param taken: further names generated names must avoid (those visible
        from the enclosing module, sibling routines…).
    :param filename: the source file, for messages.
    """

    def __init__(self, table, active, options, taken=(), filename=None, types=None):
        self.table = table
        self.types = types
        self.options = options
        self.taken = set(taken)
        self.filename = filename
        self.adjoints = {}     # primal lower name -> adjoint DataSymbol
        self.module_adjoints = set()  # names of active module variables
        self.module_variable = lambda name, symbol=None: None
        self._op_adjoints = {}  # kind text -> [DataSymbol]
        self._op_in_use = {}
        for name in sorted(active):
            primal = table.lookup(name)
            adj_name = naming.unique(table, naming.adjoint(primal.name), self.taken)
            datatype = types.adjoint_datatype(primal.datatype) \
                if is_derived(primal.datatype) else primal.datatype.copy()
            symbol = DataSymbol(adj_name, datatype, interface=AutomaticInterface())
            table.add(symbol)
            self.adjoints[name] = symbol

    def adjoint_symbol(self, symbol):
        """The adjoint DataSymbol of primal `symbol`, or None if inactive."""
        return self.adjoints.get(symbol.name.lower())

    def is_active(self, reference):
        """Whether `reference` refers to a variable with an adjoint."""
        return (isinstance(reference, Reference) and
                reference.symbol.name.lower() in self.adjoints and
                is_real_value(reference) and not self.passive_component(reference))

    def passive_component(self, reference):
        """Whether `reference` names a component no value of which varies
        (:mod:`adfort.passive_components`)."""
        passive = getattr(self.types, "passive_components", None)
        return passive is not None and passive.is_passive(reference)

    def is_adjoint_or_temporary(self, symbol):
        """Whether `symbol` was generated to hold an adjoint value."""
        if symbol in self.adjoints.values():
            return True
        return any(symbol in pool for pool in self._op_adjoints.values())

    def scalar_temporaries(self):
        """Lower-case names of the declared scalar operation-adjoint
        temporaries (each one statement's adjoint's, set before read)."""
        return {t.name.lower() for (_, rank), pool in self._op_adjoints.items()
                if rank == 0 for t in pool}

    def free_temporary(self, symbol, avoid):
        """A scalar operation-adjoint temporary of `symbol`'s kind whose
        lower-case name is not in `avoid`."""
        self.start_statement()
        while True:
            temporary = self.operation_adjoint(symbol.datatype.precision)
            if temporary.name.lower() not in avoid:
                self.start_statement()
                return temporary

    def start_statement(self):
        """Make every operation-adjoint temporary free for reuse."""
        self._op_in_use = {}

    def kind_of(self, symbol):
        """The real kind of `symbol` (None for default real)."""
        return real_kind(symbol)

    def scratch_operation_adjoint(self, kind, rank=0):
        """Return a new, undeclared operation-adjoint temporary.

        Scratch temporaries get their final names from
        :meth:`name_operation_adjoints` once inlining has removed those
        that are not needed, so the names that remain are consecutive.
        """
        return DataSymbol(naming.OPERATION_ADJOINT, _temporary_type(kind, rank),
                          interface=AutomaticInterface())

    def name_operation_adjoints(self, statements, scratch):
        """Bind the scratch temporaries left in `statements` to declared ones."""
        self.start_statement()
        mapping = {}
        for stmt in statements:
            for ref in stmt.walk(Reference):
                if ref.symbol in scratch:
                    if ref.symbol not in mapping:
                        dtype = ref.symbol.datatype
                        rank = len(dtype.shape) if isinstance(dtype, ArrayType) else 0
                        mapping[ref.symbol] = self.operation_adjoint(dtype.precision, rank)
                    ref.symbol = mapping[ref.symbol]

    def operation_adjoint(self, kind, rank=0):
        """Return a free operation-adjoint temporary of real kind `kind`
        (an allocatable array when `rank` > 0, sized by assignment)."""
        key = (str(kind), rank)
        pool = self._op_adjoints.setdefault(key, [])
        used = self._op_in_use.get(key, 0)
        if used == len(pool):
            name = naming.unique(self.table, naming.OPERATION_ADJOINT, self.taken)
            symbol = DataSymbol(name, _temporary_type(kind, rank),
                                interface=AutomaticInterface())
            self.table.add(symbol)
            pool.append(symbol)
        self._op_in_use[key] = used + 1
        return pool[used]


def _temporary_type(kind, rank):
    if rank == 0:
        return real_type(kind)
    return ArrayType(real_type(kind), [ArrayType.Extent.DEFERRED] * rank)
