"""What the differentiation of one routine takes (:class:`UnitSpec`) and
gives (:class:`RoutineMotions`): the records passed between the container
transformation and :func:`adfort.transformations.routine.reverse_work`."""


class UnitSpec:
    """How to differentiate one routine of a call graph.

    :param dependents: names of the arguments (or a function's result)
        whose adjoints come in.
    :param independents: names of the arguments whose adjoints go out.
    :param active: lower-case names of the routine's own active variables
        (None: analyse the routine alone).
    :param module_adjoints: {name: adjoint DataSymbol} of active module
        variables (declared in a generated module).
    :param calls: {id(Call): CalleeMotions or None} for the calls in it.
    :param call_io: {id(call statement): (names read, names written)}.
    :param call_clears: {id(call statement): [actual arguments whose
        adjoints the call clears (overwritten with passive values)]}.
    :param call_restores: {id(call statement): names of variables the
        (split) callee's returning motion puts back itself}.
    :param call_reads_after: ids of the call statements whose adjoint reads
        the values the call leaves (split links), not those before it.
    :param tapes: the shared dynamic TapeSet of the routine's host, or None.
    :param schedule: the reversal schedule (for calls).
    :param callee: True for a routine called by another: its ``_rev`` has
        pullback semantics for every active argument.
    :param module_dependents: names of the module variables named as
        dependents (their adjoints are the user's).
    :param module_independents: names of the module variables named as
        independents.
    :param module_variable: ``module_variable(name)`` gives (module,
        DataSymbol) of a module variable the routine may not see itself.
    :param jacobian_dependents: the rows of ``r_jacobian`` in order:
        arguments and module variables (default: the dependents).
    :param jacobian_independents: its columns in order (default: the
        independents).
    :param types: the :class:`adfort.derived.TypeRegistry` of derived types.
    :param attributes: {lower-case name: "POINTER"/"TARGET"} of its
        variables declared so (see :mod:`adfort.pointers`).
    :param rev_outputs: a callee whose ``f_rev`` must also deliver its
        ``intent(out)`` results (a caller defers the call to it,
        :mod:`adfort.deferral`).
    :param deferred: {id(call statement): names of the variables whose
        values the call's reversal delivers}: calls ``r_rev`` does not run
        forward (:mod:`adfort.deferral`).
    """

    def __init__(self, dependents, independents, active=None, module_adjoints=None,
                 calls=None, call_io=None, call_clears=None, tapes=None, schedule=None,
                 callee=False,
                 module_dependents=(), module_independents=(), module_variable=None,
                 jacobian_dependents=(), jacobian_independents=(), types=None,
                 attributes=None, call_restores=None, call_reads_after=(),
                 call_sequences=None, rev_outputs=False, deferred=None):
        self.rev_outputs = rev_outputs
        self.deferred = deferred or {}
        self.dependents = [d.lower() for d in dependents]
        self.independents = [i.lower() for i in independents]
        self.active = active
        self.module_adjoints = module_adjoints or {}
        self.calls = calls or {}
        self.call_io = call_io or {}
        self.call_clears = call_clears or {}
        self.call_restores = call_restores or {}
        self.call_reads_after = set(call_reads_after)
        # id(call statement) -> positions of elements starting array dummies
        self.call_sequences = call_sequences or {}
        self.tapes = tapes
        self.schedule = schedule
        self.callee = callee
        self.module_dependents = {name.lower() for name in module_dependents}
        self.module_independents = {name.lower() for name in module_independents}
        self.module_roles = self.module_dependents | self.module_independents
        self.jacobian_dependents = [n.lower() for n in jacobian_dependents]
        self.jacobian_independents = [n.lower() for n in jacobian_independents]
        self.module_variable = module_variable or (lambda name, symbol=None: None)
        self.types = types
        self.attributes = attributes or {}

    def module_constant(self, name):
        """Whether `name` is a named constant of a module the routine uses."""
        return getattr((self.module_variable(name) or (0, None))[1], "is_constant", False)


class RoutineMotions:
    """The routines generated for one differentiated routine.

    :ivar recording: ``r_rec``; :ivar returning: ``r_ret``;
    :ivar reversing: ``r_rev``; :ivar jacobian: ``r_jacobian`` or None;
    :ivar tapes: the :class:`adfort.tape.Tape` objects used;
    :ivar dynamic: whether the tapes are module arrays that grow (True) or
        fixed-size arguments (False).
    """

    def __init__(self, recording, returning, reversing, jacobian, tapes, dynamic):
        self.exit_reads = None  # argument names r_ret reads as r_rec left them
        self.shared_exit_reads = None   # module/COMMON variables it so reads
        self.rev_reads = None   # argument names f_rev names (a callee's), or None
        self.rev_outputs = set()  # intent(out) dummies whose results f_rev delivers
        self.restores = set()   # argument names r_ret puts back as r_rec found them
        self.recording = recording
        self.returning = returning
        self.reversing = reversing
        self.jacobian = jacobian
        self.given = None       # r_ret_given, which r_rev calls, or None
        self.tapes = tapes
        self.dynamic = dynamic

    @property
    def routines(self):
        """The generated Routine nodes, in output order."""
        return [r for r in (self.recording, self.returning, self.given, self.reversing,
                            self.jacobian) if r is not None]

    @property
    def tape_sizes(self):
        """Slots of each static tape, by name (dynamic tapes: None)."""
        return {t.symbol.name: (None if t.dynamic else t.slots) for t in self.tapes}
