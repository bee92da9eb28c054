"""adfort: source-to-source reverse-mode automatic differentiation for Fortran."""

__version__ = "0.1.0"

from adfort import lazy  # noqa: E402  (before PSyclone: sympy deferred)

lazy.install()

from adfort import patches  # noqa: E402  (faster PSyclone lookups)

patches.apply()

from adfort import fparser_speed  # noqa: E402  (faster fparser matching)

fparser_speed.apply()

from adfort.errors import AdfortError  # noqa: E402
from adfort.schedules import (  # noqa: E402
    ADReversalSchedule, JointReversalSchedule, LinkReversalSchedule,
    SplitReversalSchedule)
from adfort.transformations import (  # noqa: E402
    ADReverseAssignmentTrans, ADReverseContainerTrans, ADReverseOperationTrans,
    ADReverseRoutineTrans)
from adfort.tangent.build import ADTangentContainerTrans  # noqa: E402

__all__ = [
    "ADReversalSchedule", "ADReverseAssignmentTrans", "ADReverseContainerTrans",
    "ADTangentContainerTrans",
    "ADReverseOperationTrans", "ADReverseRoutineTrans", "AdfortError",
    "JointReversalSchedule", "LinkReversalSchedule", "SplitReversalSchedule",
    "__version__"]
