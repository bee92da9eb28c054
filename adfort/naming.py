"""Every name pattern adfort generates, in one place.

Names that might clash with user names are resolved through the PSyIR
symbol tables (:func:`unique`), never by hoping a suffix is unused.

The rule: a generated name never takes a name the user's code has where
the generated one is seen, and never has more than :data:`MAX_NAME_LENGTH`
characters.  A name internal to the generated code is changed when it
would clash (``coef_adj_1``: :func:`unique`, :func:`unique_name`) or be
too long (its start and a short hash of the whole: :func:`fit`).  A name
the calling convention fixes (``m_ad`` for module ``m``; ``r_rec``,
``r_ret``, ``r_rev``, ``r_jacobian``; the adjoints of module variables and
COMMON members named as dependents or independents) is kept, and a clash
or an excess length is an error saying what to rename
(:func:`check_length`).
"""

import hashlib

ADJOINT_SUFFIX = "_adj"
RECORDING_SUFFIX = "_rec"
RETURNING_SUFFIX = "_ret"
REVERSING_SUFFIX = "_rev"
RETURNING_GIVEN_SUFFIX = "_ret_given"
JACOBIAN_SUFFIX = "_jacobian"
MODULE_SUFFIX = "_ad"
OPERATION_ADJOINT = "op_adj"
VALUE_TAPE = "value_tape"
CONTROL_TAPE = "control_tape"
TAPE_TOP_SUFFIX = "_top"
TAPE_RESERVE_SUFFIX = "_reserve"
TAPE_ROOM_SUFFIX = "_room"
TAPE_PUT_SUFFIX = "_put"
TAPE_GET_SUFFIX = "_get"
TAPE_MODULE_SUFFIX = "_ad_tape"
HELPER_MODULE_SUFFIX = "_helpers"
# The IF decisions of the dynamic layout, one bit each, 64 to a word.
BRANCH_TAPE = CONTROL_TAPE + "_bits"
BRANCH_WORD_SUFFIX = "_word"
BRANCH_COUNT_SUFFIX = "_count"
BRANCH_PUSH_SUFFIX = "_push"
BRANCH_POP_SUFFIX = "_pop"
BRANCH_BITS_PER_WORD = 64
BRANCH_TAKEN = "branch_taken"
TAPE_INITIAL_SIZE = 1024
ITERATION_COUNT = "iteration_count"
POPPED_VALUE = "popped_value"     # a control value popped as soon as pushed
EXIT_FLAG = "exiting"
# Stands for the '*' of an assumed-size array while adfort works on it.
ASSUMED_SIZE = "adfort_assumed_size"
# The digamma function the derivatives of GAMMA and LOG_GAMMA call
# (adfort.helpers), written into the generated file.
DIGAMMA = "adfort_digamma"
JACOBIAN_ELEMENT = "jacobian_element"
JACOBIAN_SEED = "jacobian_seed"
CYCLE_FLAG = "cycling"
# Flags of the front end's restructuring of GO TO and RETURN.
RETURN_FLAG = "returning"
JUMP_FLAG_PREFIX = "goto_"
SKIP_FLAG_PREFIX = "skip_to_"
# The loop index of an elemental function applied to arrays, element by element.
ELEMENT_INDEX = "element"
# A WHERE lowered to loops: its loop indices, masks and stored values.
WHERE_INDEX = "where_index"
WHERE_MASK = "where_mask"
WHERE_PENDING = "where_pending"
WHERE_VALUE = "where_value"
INPUT_COPY_SUFFIX = "_in"
OUTPUT_COPY_SUFFIX = "_out"
JACOBIAN_ARGUMENT = "jacobian"
# A local variable of the user's named as an intrinsic (``integer :: size``)
# is renamed in the generated routines, which may call that intrinsic.
SHADOWING_LOCAL_SUFFIX = "_local"
# A checkpointed loop's driver (adfort/transformations/checkpoint.py) and
# the step procedure the front end makes of its body.
CHECKPOINT_STEP_PROCEDURE = "ckpt_step"
FIXED_POINT_STEP_PROCEDURE = "fp_step"
# A fixed-point loop's adjoint iteration (adfort/transformations/fixed_point.py).
FIXED_POINT_OUT = "fp_out"
FIXED_POINT_PREVIOUS = "fp_previous"
FIXED_POINT_INCREMENT = "fp_increment"
FIXED_POINT_SAVED = "fp_saved"
FIXED_POINT_COUNT = "fp_count"
FIXED_POINT_CHANGE = "fp_change"
FIXED_POINT_SIZE = "fp_size"
CHECKPOINT_STEPS = "ckpt_steps"
CHECKPOINT_ACTIONS = "ckpt_actions"
CHECKPOINT_COUNT = "ckpt_nactions"
CHECKPOINT_FORWARD = "ckpt_first_reverse"
CHECKPOINT_ACTION = "ckpt_action"
CHECKPOINT_SLOT_DEPTH = "ckpt_slot_depth"
CHECKPOINT_DEPTH = "ckpt_depth"
CHECKPOINT_STEP = "ckpt_step"
# Tangent (forward) mode and Hessian-vector products.
TANGENT_SUFFIX = "_d"
FORWARD_SUFFIX = "_fwd"
FORWARD_MODULE_SUFFIX = "_fwd"
HVP_SUFFIX = "_hvp"
HVP_MODULE_SUFFIX = "_hvp"
TANGENT_ZERO = "zero_d"
# A generated routine's automatic arrays in one buffer
# (adfort/transformations/work_arrays.py): the routine proper, the buffer
# on the stack, the one allocated when that is too small, and the extents.
WORK_BODY_SUFFIX = "_body"
MAX_NAME_LENGTH = 63      # (Fortran 2003 names)
WORK_STACK = "work_stack"
WORK_HEAP = "work_heap"
WORK_EXTENT = "work_extent"


def work_body(name):
    """Name of generated routine `name` taking its work arrays as arguments."""
    return name + WORK_BODY_SUFFIX


def head_variant(name, head):
    """Name of generated routine `name` as head `head` needs it, when
    another head of the same run needs a different routine under `name`
    (a callee differentiated with other active arguments)."""
    return fit(f"{name}_{head}")


def tangent(name):
    """Name of the tangent (directional derivative) of variable `name`."""
    return name + TANGENT_SUFFIX


def forward(name):
    """Name of the tangent-mode routine (the pushforward) of routine `name`."""
    return name + FORWARD_SUFFIX


def forward_module(name):
    """Name of the generated tangent-mode module for module `name`."""
    return name + FORWARD_MODULE_SUFFIX


def hvp(name):
    """Name of the Hessian-vector product routine of routine `name`."""
    return name + HVP_SUFFIX


def hvp_module(name):
    """Name of the generated module of Hessian-vector products for module `name`."""
    return name + HVP_MODULE_SUFFIX


def tangent_zero(routine):
    """Name of a local holding a zero tangent passed to `routine`."""
    return f"{routine}{TANGENT_SUFFIX}_zero"


def adjoint(name):
    """Name of the adjoint of variable `name`."""
    return name + ADJOINT_SUFFIX


def adjoint_type(name):
    """Name of the adjoint type of derived type `name` (its real components)."""
    return name + ADJOINT_SUFFIX


def recording(name):
    """Name of the recording motion of routine `name`."""
    return name + RECORDING_SUFFIX


def returning(name):
    """Name of the returning motion of routine `name`."""
    return name + RETURNING_SUFFIX


def reversing(name):
    """Name of the reversing motion (record then return) of routine `name`."""
    return name + REVERSING_SUFFIX


def returning_given(name):
    """Name of the returning motion of routine `name` that ``r_rev`` calls
    with the recording's final locals as arguments (no hand-over on the
    tape; internal: shortened when too long)."""
    return fit(name + RETURNING_GIVEN_SUFFIX)


def jacobian(name):
    """Name of the routine returning the Jacobian of routine `name`."""
    return name + JACOBIAN_SUFFIX


def module(name):
    """Name of the generated module for the routines of module `name`."""
    return name + MODULE_SUFFIX


def value_tape(type_tag=None):
    """Name of the value tape, one per stored datatype (`type_tag` when several)."""
    return VALUE_TAPE if not type_tag else f"{VALUE_TAPE}_{type_tag}"


def tape_top(tape):
    """Name of the top-of-stack counter of a dynamic tape."""
    return tape + TAPE_TOP_SUFFIX


def tape_room(tape):
    """Name of the local holding the room a routine reserves on a dynamic
    tape at its entry, which the room checks in its loops keep free."""
    return tape + TAPE_ROOM_SUFFIX


def tape_reserve(tape):
    """Name of the routine that makes room on a dynamic tape."""
    return tape + TAPE_RESERVE_SUFFIX


def tape_put(tape):
    """Name of the routine copying an array of rank > 1 onto a dynamic tape."""
    return tape + TAPE_PUT_SUFFIX


def tape_get(tape):
    """Name of the routine copying an array of rank > 1 back from a tape."""
    return tape + TAPE_GET_SUFFIX


def branch_tape_names(tape):
    """(word, count, push, pop) names of the bit tape `tape`."""
    return (tape + BRANCH_WORD_SUFFIX, tape + BRANCH_COUNT_SUFFIX,
            tape + BRANCH_PUSH_SUFFIX, tape + BRANCH_POP_SUFFIX)


def tangent_helper_module(routine):
    """Name of the module holding the helper functions (adfort.helpers) of
    the tangents of external routines: not the adjoint's tape module, which
    may be compiled with it."""
    return fit(routine + FORWARD_SUFFIX + HELPER_MODULE_SUFFIX)


def tape_module(routine):
    """Name of the module holding the dynamic tapes of an external routine
    (internal: shortened when too long)."""
    return fit(routine + TAPE_MODULE_SUFFIX)


def stored_value(label):
    """A value of a costly call kept for the adjoint (exp_value, pow_value)."""
    return f"{label}_value"


def loop_bound(label):
    """Name of a local keeping a DO loop's first value or step."""
    return f"loop_{label}"


def block_bound(index, which):
    """Name of a local holding the first or last value of DO index `index`
    in a block of iterations (`which`: "first", "last")."""
    return f"{index}_{which}"


def assigned_element(array):
    """Name of a local holding a subscript of an assignment to `array` that
    reads `array` itself (``h(nint(h(2))) = …``)."""
    return f"{array}_at"


def function_value(function):
    """Name of a local holding the value of a call to `function`."""
    return f"{function}_value"


def inlined_local(function, local):
    """Name of a caller's local standing for `local` of the short function
    `function` inlined into it (:mod:`adfort.inlining`)."""
    return f"{function}_{local}"


def block_local(name):
    """Name a local of a BLOCK construct takes in its routine when the
    routine already has `name` (:mod:`adfort.blocks`)."""
    return f"{name}_blk"


def call_argument(routine):
    """Name of a local holding an expression passed to `routine`."""
    return f"{routine}_argument"


ADJOINT_SCRATCH = "adj_scratch"


def common_module(block):
    """Name of the module holding the layout of COMMON block `block`."""
    return f"{block}_common"


def at_call(name):
    """Name of a local holding the value `name` had when a call began."""
    return f"{name}_at_call"


def computed_again(name):
    """A scalar a copy of a loop computed again while returning sets, in
    place of `name` (which the returning motion may still need)."""
    return f"{name}_again"


def input_copy(name):
    """Name of a copy of the input value of variable `name`."""
    return name + INPUT_COPY_SUFFIX


def output_copy(name):
    """Name of a copy of the output value of variable `name`."""
    return name + OUTPUT_COPY_SUFFIX


def specialised(routine, passed):
    """Name of the copy of `routine` for the routines `passed` to its
    dummy procedures (see :mod:`adfort.specialise`)."""
    return "_".join([routine] + list(passed))


EXTENT_SUFFIX = "_extent"


def extent(name):
    """Name of the largest last subscript the recording motion assigns in
    the assumed-size argument `name` (see :mod:`adfort.extents`)."""
    return name + EXTENT_SUFFIX


def jump_flag(tag):
    """Name of the flag set by a jump that leaves a loop for `tag` (a label)."""
    return f"{JUMP_FLAG_PREFIX}{tag}"


def skip_flag(tag):
    """Name of the flag set by a jump over code to `tag` (a label)."""
    return f"{SKIP_FLAG_PREFIX}{tag}"


def unshadowed(name):
    """Name in the generated routines of the user's local variable `name`,
    which has the name of an intrinsic (adfort/shadows.py)."""
    return name + SHADOWING_LOCAL_SUFFIX


def fit(name, limit=MAX_NAME_LENGTH):
    """`name`, or when it has more than `limit` characters its start
    followed by ``_`` and six hexadecimal digits of a hash of the whole
    (lower case): deterministic, and two long names that differ only
    beyond the cut still differ."""
    if len(name) <= limit:
        return name
    digest = hashlib.sha1(name.lower().encode()).hexdigest()[:6]
    return f"{name[:limit - 7]}_{digest}"


def check_length(name, what, base, longest, location=None):
    """Raise an error when `name`, which the calling convention fixes,
    is longer than Fortran allows.

    :param what: what `name` is (``"the reversing routine"``).
    :param base: the user's name it is made from (``r`` of ``r_rev``).
    :param longest: the most characters `base` may have.
    """
    if len(name) <= MAX_NAME_LENGTH:
        return
    from adfort.errors import AdfortError
    raise AdfortError(
        f"'{base}' ({len(base)} characters) is too long for the names adfort "
        f"generates from it: {what} '{name}' would have {len(name)} characters, and "
        f"Fortran allows {MAX_NAME_LENGTH}; rename '{base}' to at most {longest} "
        "characters", location)


def unique_name(name, taken):
    """Return `name`, or `name_1`, `name_2`… if it is in `taken` (lower
    case); shortened by :func:`fit` when too long."""
    taken = {t.lower() for t in taken}
    candidate, count = fit(name), 0
    while candidate.lower() in taken:
        count += 1
        candidate = fit(f"{name}_{count}")
    return candidate


def unique(symbol_table, name, taken=()):
    """Return `name`, or `name_1`, `name_2`… if it is already used.

    :param symbol_table: the PSyIR table the name will be declared in; its
        ancestors' names count as used too.
    :param taken: further names to avoid (e.g. those of sibling routines).
    """
    taken = {t.lower() for t in taken}
    candidate, count = fit(name), 0
    while True:
        try:
            symbol_table.lookup(candidate)
            clash = True
        except KeyError:
            clash = candidate.lower() in taken
        if not clash:
            return candidate
        count += 1
        candidate = fit(f"{name}_{count}")


def hoisted(host, internal):
    """Name of internal procedure `internal` of routine `host` once adfort
    makes it a procedure of its own (host variables passed as arguments;
    shortened when too long)."""
    return fit(f"{host}_{internal}")


def checkpoint_module(routine):
    """Name of the module of checkpointing schedules written into the
    output for `routine` (adfort/checkpointing.py)."""
    return fit(f"{routine}_checkpointing")


# Locals of the adjoints of MPI calls (adfort.transformations.mpi): error
# codes, ranks, scratch buffers, requests of reversed communication.  Never
# MPI_-prefixed: those names are the library's (MPI_ERROR is a constant).
MPI_ERROR = "ad_ierror"
MPI_RANK = "ad_rank"
MPI_SIZE = "ad_nproc"
MPI_INDEX = "ad_element"
MPI_BUFFER = "ad_buffer"
MPI_REQUEST = "ad_request"
MPI_ITERATION = "ad_iteration"
MPI_TYPE_SIZE = "ad_type_size"
MPI_STATUS = "ad_status"
MPI_OWNER = "ad_owner"


def tangent_request(name):
    """Name of the request of the tangent messages of the non-blocking calls
    whose request variable is `name` (declared like it)."""
    return tangent(name)
