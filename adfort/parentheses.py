"""Actual arguments PSyclone's reader would take for something else.

Parenthesised actual arguments: ``call s((x))`` passes a copy of ``x``.

Fortran makes ``(x)`` an expression, not the variable: the callee gets
its value and cannot change ``x``, and ``x`` may be changed in the callee
through another path (a COMMON block, a module) without the argument
changing with it.  PSyclone drops the parentheses, which would make adfort
pass (and reverse) the variable itself.  The reader here keeps such an
argument an expression, ``+x``, which the call normalisation stores in a
temporary like any other expression argument.

A function reference with keyword arguments, ``weight(w=p%w, s=s)``, is
read by fparser as a structure constructor whose component values are
parsed as procedure component references (``p%w``): PSyclone keeps those
opaque, and adfort refused the statement.  The reader here reads such a
value as the data reference it is.
"""

from fparser.two import Fortran2003
from psyclone.psyir.nodes import UnaryOperation

# Where a parenthesised variable is an actual argument: a call's list, a
# keyword argument, or the list of what may be a function reference.
_ARGUMENT_LISTS = (Fortran2003.Actual_Arg_Spec_List, Fortran2003.Actual_Arg_Spec,
                   Fortran2003.Section_Subscript_List, Fortran2003.Component_Spec,
                   Fortran2003.Component_Spec_List)
_DESIGNATORS = (Fortran2003.Name, Fortran2003.Part_Ref, Fortran2003.Data_Ref)


def keep_parenthesised_arguments(reader):
    """Make the FortranReader `reader` read a parenthesised variable given
    as an actual argument as the expression ``+variable``."""
    processor = reader._processor
    handler = processor.handlers[Fortran2003.Parenthesis]

    def parenthesis(node, parent):
        inner = node.items[1]
        if isinstance(getattr(node, "parent", None), _ARGUMENT_LISTS) and \
                isinstance(inner, _DESIGNATORS):
            plus = UnaryOperation(UnaryOperation.Operator.PLUS, parent=parent)
            plus.addchild(processor._create_child(inner, plus))
            return plus
        return handler(node, parent)
    processor.handlers[Fortran2003.Parenthesis] = parenthesis


def read_component_keyword_arguments(reader):
    """Make the FortranReader `reader` read ``p%w``, the value of a keyword
    argument in what fparser takes for a structure constructor, as the
    data reference ``p%w`` (a procedure component is never such a value)."""
    processor = reader._processor

    def component(node, parent):
        if not isinstance(getattr(node, "parent", None), Fortran2003.Component_Spec):
            raise NotImplementedError(str(node))   # left to PSyclone: a code block
        return processor._create_child(Fortran2003.Data_Ref(str(node)), parent)
    processor.handlers[Fortran2003.Proc_Component_Ref] = component
