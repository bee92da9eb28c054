"""Source normalisation before parsing: each rewrite keeps line numbers."""

import pytest

from adfort.errors import AdfortError
from adfort.frontend import (
    drop_external_statements, fixed_form_columns, generic_intrinsic_names, read_file,
    split_assumed_size_declarations, unlabel_do_loops)


def test_labelled_do_loops_become_do_end_do():
    source = ("      DO 20 J = 1, 2\n"
              "      DO 20 I = 1, N\n"
              "         F(I) = X(I) * J\n"
              "   20 CONTINUE\n"
              "      DO 30 I = 1, N\n"
              "   30 F(I) = F(I) + 1.0D0\n")
    lines = source.splitlines()
    out = unlabel_do_loops(source, fixed_form=True).splitlines()
    assert len(out) == len(lines)
    assert out[0].strip() == "do J = 1, 2"
    assert out[1].strip() == "do I = 1, N"
    assert out[3].strip() == "end do; end do"
    assert out[5].strip() == "F(I) = F(I) + 1.0D0; end do"


def test_label_that_is_a_jump_target_is_kept():
    source = "do 10 i = 1, n\n  if (x(i) < 0) go to 10\n  y = y + x(i)\n10 continue\n"
    out = unlabel_do_loops(source, fixed_form=False).splitlines()
    assert out[3].startswith("10 ") and out[3].endswith("end do")


def test_specific_intrinsics_get_generic_names_outside_strings_and_comments():
    source = ("      Y = DSQRT(X) + AMAX1(A, B) + DMOD(X, 2.D0)\n"
              "C     DSQRT(X) in a comment\n"
              "      S = 'DEXP(1)'\n")
    out = generic_intrinsic_names(source, fixed_form=True).splitlines()
    assert out[0] == "      Y = SQRT(X) + MAX(A, B) + MOD(X, 2.D0)"
    assert out[1] == "C     DSQRT(X) in a comment"
    assert out[2] == "      S = 'DEXP(1)'"


def test_a_routine_named_like_a_specific_intrinsic_is_left_alone():
    source = "x = dexp(y)\ncontains\nfunction dexp(a)\n"
    assert generic_intrinsic_names(source, fixed_form=False) == source


def test_fixed_form_ignores_columns_beyond_72():
    line = "      Y = X + 1.0D0" + " " * 53 + "00012345"
    assert fixed_form_columns(line + "\n") == line[:72] + "\n"
    comment = "C" + "x" * 90
    assert fixed_form_columns(comment) == comment


def test_assumed_size_declarations_are_split_on_the_same_line():
    source = "      DOUBLE PRECISION DT, F, X(*), J\n"
    out = split_assumed_size_declarations(source, fixed_form=True)
    assert out == ("      DOUBLE PRECISION DT; DOUBLE PRECISION F; "
                   "DOUBLE PRECISION X(*); DOUBLE PRECISION J\n")


def test_declarations_with_attributes_are_split_too():
    # integer, intent(in) :: ia(n+1), ja(*) (CSR, SPARSKIT): PSyclone could
    # not read the module ("cannot read 'MODULE m'").
    source = "    integer, intent(in) :: ia(n+1), ja(*)\n    real(8) :: c(m, 0:2), d(n*(m+1), *)\n"
    out = split_assumed_size_declarations(source, fixed_form=False)
    assert out == ("    integer, intent(in) :: ia(n+1); integer, intent(in) :: ja(*)\n"
                   "    real(8) c(m, 0:2); real(8) d(n*(m+1), *)\n")


def test_fixed_form_model_with_assumed_size_reads(tmp_path):
    src = tmp_path / "k.f"
    src.write_text("      SUBROUTINE K(N, A, X, S)\n"
                   "      INTEGER N, I\n"
                   "      DOUBLE PRECISION A(*), X(N), S\n"
                   "      S = 0.0D0\n"
                   "      DO 10 I = 1, N\n"
                   "   10 S = S + A(I) * DSQRT(X(I))\n"
                   "      END\n")
    tree = read_file(str(src))
    routine = tree.children[0]
    assert routine.symbol_table.lookup("a").datatype.intrinsic.name == "REAL"


def test_preprocessor_directives_are_reported(tmp_path):
    # A lower-case suffix: compilers do not preprocess it (k.F90 would be).
    src = tmp_path / "k.f90"
    src.write_text("subroutine k(x)\n#ifdef FAST\nreal :: x\n#endif\nend subroutine\n")
    with pytest.raises(AdfortError, match="preprocessor directive.*k.F90.*--cpp") as err:
        read_file(str(src))
    assert err.value.location.endswith("k.f90:2")


def test_unknown_suffix_is_reported(tmp_path):
    src = tmp_path / "k.txt"
    src.write_text("subroutine k\nend subroutine\n")
    with pytest.raises(AdfortError, match="source form"):
        read_file(str(src))


def test_external_statements_for_called_routines_are_commented_out():
    source = ("subroutine k(f, x)\n  external :: f\n  external helper\n"
              "  call helper(x)\nend subroutine k\n")
    out = drop_external_statements(source, fixed_form=False).splitlines()
    assert out[1] == "  external :: f"          # a dummy procedure: kept (and fenced)
    assert out[2] == "! external helper"


def test_positional_dim_of_reductions_is_named():
    from adfort.frontend import positional_dims
    source = ("  s = sum(a, 1) + maxval(g(b, c), 2)*count(m, 1) + sum(x, mask)\n"
              "  w = 'sum(a, 1)' ! sum(a, 1)\n")
    assert positional_dims(source) == (
        "  s = sum(a, dim=1) + maxval(g(b, c), dim=2)*count(m, dim=1) + sum(x, mask)\n"
        "  w = 'sum(a, 1)' ! sum(a, 1)\n")
    # An array the source declares with a reduction's name keeps its subscripts.
    declared = "  integer :: count(3, 3)\n  s = count(1, 2) + sum(a, 1)\n"
    assert positional_dims(declared) == declared.replace("sum(a, 1)", "sum(a, dim=1)")
