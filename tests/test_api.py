"""The Python API on PSyIR trees."""

import pytest
from psyclone.psyir.backend.fortran import FortranWriter
from psyclone.psyir.frontend.fortran import FortranReader
from psyclone.psyir.nodes import Container, FileContainer, Routine

from adfort import (
    ADReverseContainerTrans, AdfortError, JointReversalSchedule,
    LinkReversalSchedule, SplitReversalSchedule)

SOURCE = """\
module radiation
  implicit none
  integer, parameter :: wp = selected_real_kind(12)
  real(wp), parameter :: sigma = 5.670374419e-8_wp
contains
  subroutine emission(eps, t, q)
    real(wp), intent(in) :: eps, t
    real(wp), intent(out) :: q
    real(wp) :: t2
    t2 = t * t
    q = eps * sigma * t2 * t2
  end subroutine emission
end module radiation
"""


@pytest.fixture
def tree():
    return FortranReader().psyir_from_source(SOURCE)


def test_apply_returns_new_container_and_leaves_input_unchanged(tree):
    before = FortranWriter()(tree)
    result = ADReverseContainerTrans().apply(
        tree, "emission", ["q"], ["eps", "t"], SplitReversalSchedule())
    assert FortranWriter()(tree) == before
    assert isinstance(result, FileContainer)
    module = result.children[0]
    assert isinstance(module, Container) and module.name == "radiation_ad"
    names = [r.name for r in result.walk(Routine)]
    assert names == ["emission_rec", "emission_ret", "emission_rev"]
    rev = result.walk(Routine)[2]
    assert [a.name for a in rev.symbol_table.argument_list] == \
        ["eps", "eps_adj", "t", "t_adj", "q", "q_adj"]


def test_options_and_schedules(tree):
    trans = ADReverseContainerTrans()
    for schedule in (SplitReversalSchedule(), JointReversalSchedule(),
                     LinkReversalSchedule(default=JointReversalSchedule())):
        result = trans.apply(tree, "emission", ["q"], ["t"], schedule,
                             {"jacobian": True, "verbose": True})
        text = FortranWriter()(result)
        assert "subroutine emission_jacobian(eps, t, q, jacobian)" in text
        assert "! adjoint of: q = eps * sigma * t2 * t2" in text


def test_bad_arguments_are_reported(tree):
    trans = ADReverseContainerTrans()
    with pytest.raises(TypeError):
        trans.apply(tree, "emission", "q", ["t"], SplitReversalSchedule())
    with pytest.raises(TypeError):
        trans.apply(tree, "emission", ["q"], ["t"], "split")
    with pytest.raises(AdfortError, match="unknown option"):
        trans.apply(tree, "emission", ["q"], ["t"], SplitReversalSchedule(),
                    {"jacobain": True})
    with pytest.raises(AdfortError, match="no routine 'emision'"):
        trans.apply(tree, "emision", ["q"], ["t"], SplitReversalSchedule())


def test_link_schedule_choices():
    link = LinkReversalSchedule(strong_links=[("a", "b")], weak_links=[("a", "c")],
                                default=JointReversalSchedule())
    assert link.is_split("A", "b") and not link.is_split("a", "c")
    assert not link.is_split("x", "y")
    with pytest.raises(ValueError):
        LinkReversalSchedule(strong_links=[("a", "b")], weak_links=[("a", "b")])
