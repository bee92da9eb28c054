"""The common shape of adfort's transformations."""

from adfort.errors import AdfortError, where


class ADReverseTrans:
    """A reverse-mode transformation of one kind of PSyIR node.

    Subclasses name the node type they handle in ``node_type`` and put the
    work in plain functions; ``apply`` validates first.
    """

    node_type = None

    def validate(self, node, ctx=None):
        """Check that `node` is something this transformation handles.

        :raises AdfortError: if it is not.
        """
        if not isinstance(node, self.node_type):
            raise AdfortError(
                f"{type(self).__name__} cannot transform a "
                f"{type(node).__name__}", where(node))

    def apply(self, node, ctx):
        """Transform `node`; subclasses define what comes back."""
        raise NotImplementedError

    def __str__(self):
        return (self.__doc__ or type(self).__name__).strip().splitlines()[0]
