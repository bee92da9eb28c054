"""Checkpointing schedules for reversing a time loop with bounded memory.

A loop of ``n`` steps is reversed from snapshots of the state it carries
from one step to the next.  A schedule is a list of actions, each a triple
``(kind, a, b)``:

- ``TAKESHOT, step, slot``: store the current state (at ``step``) in
  snapshot ``slot``;
- ``RESTORE, step, slot``: put back the state at ``step`` from ``slot``;
- ``ADVANCE, a, b``: run steps ``a … b-1`` as the original code does;
- ``REVERSE, step, 0``: run step ``step`` recording, then its returning
  part (the state is at ``step``).

Two schedules:

- **binomial** (Griewank and Walther's optimal offline schedule): for
  ``c`` snapshots and ``n`` steps, the repetition number ``t`` is the
  smallest with ``C(c + t, c) >= n``; every step runs forward at most
  ``t`` times besides its recording run (``t`` extra runs in the worst
  case, on average fewer).  A range of ``l`` steps whose first state is
  held in a snapshot, with ``c`` snapshots in all, is cut at ``m``: the
  right part keeps ``c - 1`` snapshots and may hold ``C(c - 1 + t, c -
  1)`` steps, the left part, reversed after, ``C(c + t - 1, c)``.
- **every(k)** (two-level periodic): a snapshot every ``k`` steps on the
  way forward; each segment, from the last, is run again storing a
  snapshot per step, then reversed step by step.

The same schedules exist in Fortran (:data:`FORTRAN_MODULE`, written into
the generated file when a loop is checkpointed) and here in Python, which
the tests compare and the documentation quotes.
"""

from math import comb

TAKESHOT, RESTORE, ADVANCE, REVERSE = 1, 2, 3, 4


def repetitions(steps, snapshots):
    """The binomial repetition number: the smallest ``t`` with
    ``C(snapshots + t, snapshots) >= steps``."""
    t = 0
    while comb(snapshots + t, snapshots) < steps:
        t += 1
    return t


def binomial_actions(steps, snapshots):
    """The binomial schedule of `steps` steps with `snapshots` >= 1 slots
    (slot 1 holds the initial state)."""
    if snapshots < 1:
        raise ValueError("binomial checkpointing needs at least one snapshot")
    actions = []
    if steps <= 0:
        return actions
    actions.append((TAKESHOT, 0, 1))
    _reverse(actions, 0, steps, snapshots, 1)
    return actions


def _reverse(actions, first, end, count, slot):
    """Reverse steps first…end-1; the state is at `first`, also held in
    `slot`; `count` snapshots in all from `slot` on."""
    while end - first > 0:
        length = end - first
        if length == 1:
            actions.append((REVERSE, first, 0))
            return
        if count == 1:
            # No free slot: run from the snapshot to each step in turn.
            for step in range(end - 1, first - 1, -1):
                if step != end - 1:
                    actions.append((RESTORE, first, slot))
                if step > first:
                    actions.append((ADVANCE, first, step))
                actions.append((REVERSE, step, 0))
            return
        t = repetitions(length, count)
        right = min(comb(count - 1 + t, count - 1), length - 1)
        cut = end - right
        actions.append((ADVANCE, first, cut))
        actions.append((TAKESHOT, cut, slot + 1))
        _reverse(actions, cut, end, count - 1, slot + 1)
        actions.append((RESTORE, first, slot))
        end = cut   # the left part, with every slot from `slot` on


def periodic_actions(steps, every):
    """The two-level periodic schedule: a snapshot every `every` steps, then
    one per step of the segment being reversed (slots 1… for the segment
    starts, then ``steps // every + 2`` … for the steps)."""
    if every < 1:
        raise ValueError("checkpointing every k steps needs k >= 1")
    actions = []
    starts = list(range(0, steps, every))
    for number, start in enumerate(starts, start=1):
        actions.append((TAKESHOT, start, number))
        end = min(start + every, steps)
        if number < len(starts):
            actions.append((ADVANCE, start, end))
    inner = len(starts) + 1
    for number in range(len(starts), 0, -1):
        start = starts[number - 1]
        end = min(start + every, steps)
        if number < len(starts):
            actions.append((RESTORE, start, number))
        for step in range(start, end - 1):
            actions.append((TAKESHOT, step, inner + step - start))
            actions.append((ADVANCE, step, step + 1))
        for step in range(end - 1, start - 1, -1):
            if step != end - 1:
                actions.append((RESTORE, step, inner + step - start))
            actions.append((REVERSE, step, 0))
    return actions


def periodic_slots(steps, every):
    """Snapshots :func:`periodic_actions` uses at most."""
    if steps <= 0:
        return 0
    return -(-steps // every) + max(0, min(every, steps) - 1)


def simulate(actions, steps, snapshots=None):
    """Run a schedule on a model that only counts: check it and return
    (forward runs per step (list), most slots in use).

    :raises AssertionError: if a step is reversed out of order, a restore
        finds another step's state, or a slot beyond `snapshots` is used.
    """
    state, slots, runs, reversed_next = 0, {}, [0] * max(steps, 0), steps - 1
    for kind, a, b in actions:
        if kind == TAKESHOT:
            assert a == state, (kind, a, b, state)
            assert snapshots is None or 1 <= b <= snapshots, (kind, a, b)
            slots[b] = a
        elif kind == RESTORE:
            assert slots.get(b) == a, (kind, a, b, slots)
            state = a
        elif kind == ADVANCE:
            assert a == state and a <= b, (kind, a, b, state)
            for step in range(a, b):
                runs[step] += 1
            state = b
        elif kind == REVERSE:
            assert a == state == reversed_next, (kind, a, state, reversed_next)
            reversed_next -= 1
        else:
            raise AssertionError(f"unknown action {kind}")
    assert reversed_next == -1, reversed_next
    return runs, max(slots) if slots else 0


# The same schedules in Fortran: written into the generated file when a
# loop is checkpointed (plain Fortran 2008, no library to install).
FORTRAN_MODULE = """\
module adfort_checkpointing
  ! Checkpointing schedules written by adfort (see adfort/checkpointing.py):
  ! actions(1:3, i) = (kind, a, b) for i = 1 .. nact.
  implicit none
  private
  public :: adfort_binomial_schedule, adfort_periodic_schedule, adfort_repetitions, &
      adfort_schedule_slots, adfort_first_reverse
  integer, parameter, public :: adfort_takeshot = 1, adfort_restore = 2, &
      adfort_advance = 3, adfort_reverse = 4

contains

  ! C(c + t, c), or huge when it passes `cap`.
  integer(kind=8) function adfort_beta(c, t, cap) result(beta)
    integer, intent(in) :: c, t
    integer(kind=8), intent(in) :: cap
    integer :: i
    beta = 1
    do i = 1, t
      beta = (beta * (c + i)) / i
      if (beta >= cap) then
        beta = huge(beta)
        return
      end if
    end do
  end function adfort_beta

  ! The smallest t with C(snapshots + t, snapshots) >= steps.
  integer function adfort_repetitions(steps, snapshots) result(t)
    integer, intent(in) :: steps, snapshots
    t = 0
    do while (adfort_beta(snapshots, t, int(steps, 8)) < steps)
      t = t + 1
    end do
  end function adfort_repetitions

  subroutine adfort_push(actions, nact, kind, a, b)
    integer, allocatable, intent(inout) :: actions(:, :)
    integer, intent(inout) :: nact
    integer, intent(in) :: kind, a, b
    integer, allocatable :: grown(:, :)
    if (.not. allocated(actions)) allocate(actions(3, 64))
    if (nact == size(actions, 2)) then
      allocate(grown(3, 2 * nact))
      grown(:, 1:nact) = actions(:, 1:nact)
      call move_alloc(grown, actions)
    end if
    nact = nact + 1
    actions(:, nact) = [kind, a, b]
  end subroutine adfort_push

  ! Binomial (Griewank-Walther) schedule of steps 0 .. steps-1 with
  ! `snapshots` >= 1 slots; slot 1 holds the initial state.
  subroutine adfort_binomial_schedule(steps, snapshots, actions, nact)
    integer, intent(in) :: steps, snapshots
    integer, allocatable, intent(inout) :: actions(:, :)
    integer, intent(out) :: nact
    nact = 0
    if (steps <= 0) return
    call adfort_push(actions, nact, adfort_takeshot, 0, 1)
    call adfort_reverse_range(0, steps, snapshots, 1, actions, nact)
  end subroutine adfort_binomial_schedule

  recursive subroutine adfort_reverse_range(first, last_end, count, slot, actions, nact)
    integer, intent(in) :: first, last_end, count, slot
    integer, allocatable, intent(inout) :: actions(:, :)
    integer, intent(inout) :: nact
    integer :: end, length, t, right, cut, step
    end = last_end
    do while (end - first > 0)
      length = end - first
      if (length == 1) then
        call adfort_push(actions, nact, adfort_reverse, first, 0)
        return
      end if
      if (count == 1) then
        do step = end - 1, first, -1
          if (step /= end - 1) call adfort_push(actions, nact, adfort_restore, first, slot)
          if (step > first) call adfort_push(actions, nact, adfort_advance, first, step)
          call adfort_push(actions, nact, adfort_reverse, step, 0)
        end do
        return
      end if
      t = adfort_repetitions(length, count)
      right = int(min(adfort_beta(count - 1, t, int(length, 8)), int(length - 1, 8)))
      cut = end - right
      call adfort_push(actions, nact, adfort_advance, first, cut)
      call adfort_push(actions, nact, adfort_takeshot, cut, slot + 1)
      call adfort_reverse_range(cut, end, count - 1, slot + 1, actions, nact)
      call adfort_push(actions, nact, adfort_restore, first, slot)
      end = cut
    end do
  end subroutine adfort_reverse_range

  ! Two-level periodic schedule: a snapshot every `every` steps (slots
  ! 1 ..), then one per step of the segment reversed.
  subroutine adfort_periodic_schedule(steps, every, actions, nact)
    integer, intent(in) :: steps, every
    integer, allocatable, intent(inout) :: actions(:, :)
    integer, intent(out) :: nact
    integer :: nseg, number, start, end, step, inner
    nact = 0
    if (steps <= 0) return
    nseg = (steps + every - 1) / every
    do number = 1, nseg
      start = (number - 1) * every
      end = min(start + every, steps)
      call adfort_push(actions, nact, adfort_takeshot, start, number)
      if (number < nseg) call adfort_push(actions, nact, adfort_advance, start, end)
    end do
    inner = nseg + 1
    do number = nseg, 1, -1
      start = (number - 1) * every
      end = min(start + every, steps)
      if (number < nseg) call adfort_push(actions, nact, adfort_restore, start, number)
      do step = start, end - 2
        call adfort_push(actions, nact, adfort_takeshot, step, inner + step - start)
        call adfort_push(actions, nact, adfort_advance, step, step + 1)
      end do
      do step = end - 1, start, -1
        if (step /= end - 1) &
            call adfort_push(actions, nact, adfort_restore, step, inner + step - start)
        call adfort_push(actions, nact, adfort_reverse, step, 0)
      end do
    end do
  end subroutine adfort_periodic_schedule

  ! The highest snapshot slot a schedule uses.
  integer function adfort_schedule_slots(actions, nact) result(slots)
    integer, allocatable, intent(in) :: actions(:, :)
    integer, intent(in) :: nact
    integer :: i
    slots = 0
    do i = 1, nact
      if (actions(1, i) == adfort_takeshot) slots = max(slots, actions(3, i))
    end do
  end function adfort_schedule_slots

  ! The position of the first REVERSE action (nact + 1 if none): the
  ! actions before it are the forward sweep.
  integer function adfort_first_reverse(actions, nact) result(first)
    integer, allocatable, intent(in) :: actions(:, :)
    integer, intent(in) :: nact
    do first = 1, nact
      if (actions(1, first) == adfort_reverse) return
    end do
    first = nact + 1
  end function adfort_first_reverse

end module adfort_checkpointing
"""
