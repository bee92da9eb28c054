"""Reversal schedules: how a differentiated routine calls its children.

- split: the child's recording motion runs in the parent's recording
  motion and its returning motion in the parent's returning motion (more
  tape, no recomputation);
- joint: the child advances (runs as the original) while the parent
  records, and is reversed whole (``_rev``) while the parent returns (less
  tape, the child's forward computation runs twice);
- link: a choice per caller→callee pair, with a default.
"""


class ADReversalSchedule:
    """Base class of reversal schedules."""

    name = None

    def is_split(self, caller, callee):
        """Whether the call from `caller` to `callee` is reversed split."""
        raise NotImplementedError

    def names(self, caller, callee):
        """Whether the schedule chooses for this link by name (a ``--link``
        or a directive): its calls stay calls (:mod:`adfort.inlining`)."""
        return False

    def __repr__(self):
        return f"{type(self).__name__}()"


class SplitReversalSchedule(ADReversalSchedule):
    """Every call is reversed split."""

    name = "split"

    def is_split(self, caller, callee):
        return True


class JointReversalSchedule(ADReversalSchedule):
    """Every call is reversed joint."""

    name = "joint"

    def is_split(self, caller, callee):
        return False


class LinkReversalSchedule(ADReversalSchedule):
    """A split (strong) or joint (weak) choice per caller→callee link.

    :param strong_links: (caller, callee) pairs reversed split.
    :param weak_links: (caller, callee) pairs reversed joint.
    :param default: the schedule for links not listed (split by default).
    """

    name = "link"

    def __init__(self, strong_links=(), weak_links=(), default=None):
        self.strong_links = {(a.lower(), b.lower()) for a, b in strong_links}
        self.weak_links = {(a.lower(), b.lower()) for a, b in weak_links}
        both = self.strong_links & self.weak_links
        if both:
            raise ValueError(f"links both strong and weak: {sorted(both)}")
        self.default = default or SplitReversalSchedule()

    def is_split(self, caller, callee):
        link = (caller.lower(), callee.lower())
        if link in self.strong_links:
            return True
        if link in self.weak_links:
            return False
        return self.default.is_split(caller, callee)

    def names(self, caller, callee):
        link = (caller.lower(), callee.lower())
        return (link in self.strong_links or link in self.weak_links
                or self.default.names(caller, callee))

    def __repr__(self):
        return (f"LinkReversalSchedule(strong_links={sorted(self.strong_links)}, "
                f"weak_links={sorted(self.weak_links)}, default={self.default!r})")


SCHEDULES = {"split": SplitReversalSchedule, "joint": JointReversalSchedule}
