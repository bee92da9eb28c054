"""The statement splitter (adfort.statements): continuation lines,
comments, strings, labels and ';' in fixed and free form."""

from adfort.statements import (
    code_outside_strings, matching_paren, split_statements, split_top_level)


def texts(source, fixed):
    return [(s.label, s.text, s.line, s.last) for s in split_statements(source, fixed)]


def test_fixed_form_continuation_in_column_6_and_labels():
    source = ("C     a comment\n"
              "      Y = A +\n"
              "     &    B\n"
              "*     another\n"
              "   10 CONTINUE\n"
              "      Z = 1\n"
              "     1  + 2\n")
    assert texts(source, True) == [(None, "Y = A +    B", 2, 3), ("10", "CONTINUE", 5, 5),
                                   (None, "Z = 1  + 2", 6, 7)]


def test_fixed_form_zero_in_column_6_is_no_continuation_and_label_zeros_drop():
    source = "  010 X = 1\n     0Y = 2\n"
    assert texts(source, True) == [("10", "X = 1", 1, 1), (None, "Y = 2", 2, 2)]


def test_fixed_form_string_continued_and_bang_in_string():
    source = ("      S = 'IT''S ! NOT\n"
              "     & A COMMENT' ! this is\n")
    assert texts(source, True) == [(None, "S = 'IT''S ! NOT A COMMENT'", 1, 2)]


def test_free_form_continuation_comments_between_and_ampersand_lead():
    source = ("y = a + &  ! first part\n"
              "  ! a comment line inside\n"
              "    & b*c\n"
              "s = \"say \"\"hi\"\" & go\"\n"
              "t = 'long &\n"
              "   &string'\n")
    assert texts(source, False) == [(None, "y = a +  b*c", 1, 3),
                                    (None, 's = "say ""hi"" & go"', 4, 4),
                                    (None, "t = 'long string'", 5, 6)]


def test_semicolons_split_statements_and_labels_after_them():
    source = "10 x = 1; y = ';'; 20 continue\n  a = 2 ;\n"
    assert texts(source, False) == [("10", "x = 1", 1, 1), (None, "y = ';'", 1, 1),
                                    ("20", "continue", 1, 1), (None, "a = 2", 2, 2)]
    fixed = "   30 X = 1; Y = 2\n"
    assert texts(fixed, True) == [("30", "X = 1", 1, 1), (None, "Y = 2", 1, 1)]


def test_free_form_label_needs_a_statement_and_numbers_are_not_labels():
    source = "100 format (i3)\nx = 10\n"
    assert texts(source, False) == [("100", "format (i3)", 1, 1), (None, "x = 10", 2, 2)]


def test_helpers_skip_strings():
    assert code_outside_strings("a = 'x(y' // \"z\"") == "a = '   ' // \" \""
    text = "f(a, '(', g(b, c)) + 1"
    assert matching_paren(text, 1) == 17
    assert split_top_level("a(1, 2), 'b, c', d") == ["a(1, 2)", " 'b, c'", " d"]
