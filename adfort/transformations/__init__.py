"""adfort's reverse-mode transformations, one per PSyIR construct."""

from adfort.transformations.assignment import ADReverseAssignmentTrans
from adfort.transformations.container import ADReverseContainerTrans
from adfort.transformations.operation import ADReverseOperationTrans
from adfort.transformations.routine import ADReverseRoutineTrans

__all__ = ["ADReverseAssignmentTrans", "ADReverseContainerTrans",
           "ADReverseOperationTrans", "ADReverseRoutineTrans"]
