"""Errors adfort reports to its users, each naming where and what."""


class AdfortError(Exception):
    """A problem with the user's input or request, reported without a traceback.

    :param str message: what is wrong and what to do about it.
    :param str location: ``file:line`` (or just ``file``) the problem is at.
    """

    def __init__(self, message, location=None):
        super().__init__(message)
        self.message = message
        self.location = location

    def __str__(self):
        if self.location:
            return f"{self.location}: {self.message}"
        return self.message


def node_line(node):
    """Return the source line number of the statement holding `node`, or None.

    :param node: a PSyIR node read by FortranReader.
    """
    start = node
    while node is not None:
        asts = getattr(node, "parse_tree_nodes", None) or [getattr(node, "ast", None)]
        if node is not start and asts[0] is not None:
            # PSyclone keeps no parse tree on some statements (intrinsic
            # subroutine calls): find the statement's text in this one's.
            line = _line_by_text(start, node)
            if line:
                return line
        line = _ast_line(asts[0])
        if line:
            return line
        node = node.parent
    return None


def _text(text):
    return "".join(str(text).split()).lower()


def _line_by_text(statement, scope):
    """Line of the statement of `scope`'s parse tree whose text is that of
    `statement` (the n-th such statement for the n-th such node)."""
    from fparser.two.Fortran2003 import Call_Stmt
    from fparser.two.utils import walk
    from psyclone.psyir.nodes import Call, Statement
    while statement is not None and not isinstance(statement, Statement):
        statement = statement.parent
    if not isinstance(statement, Call):
        return None
    text = _safe_text(statement)
    if text is None:
        return None
    same = [c for c in scope.walk(Call) if c.ast is None and _safe_text(c) == text]
    found = [s for s in walk(scope.ast, Call_Stmt) if _text(s) == text]
    index = next((i for i, c in enumerate(same) if c is statement), None)
    if index is None or index >= len(found):
        return None
    return _ast_line(found[index])


def _safe_text(node):
    """The text of call statement `node` as in the parse tree (PSyclone
    writes an intrinsic subroutine's call without its CALL)."""
    try:
        text = _text(node.debug_string())
    except Exception:  # pylint: disable=broad-except
        return None
    return text if text.startswith("call") else "call" + text


def _ast_line(ast):
    """First source line of an fparser node: its own, or its first child's
    (block constructs keep the line on their opening statement)."""
    for _ in range(8):
        if ast is None:
            return None
        span = getattr(getattr(ast, "item", None), "span", None)
        if span:
            return span[0]
        children = getattr(ast, "children", None) or getattr(ast, "content", None)
        ast = children[0] if children else None
    return None


def where(node, filename=None):
    """Return ``file:line`` for `node` (the line part only when known).

    :param node: a PSyIR node.
    :param str filename: the source file; found from the tree when None.
    """
    if filename is None:
        filename = source_name(node)
    line = node_line(node)
    if line and node is not None:
        filename, line = original_line(_origin_holder(node), filename, line)
    if filename and line:
        return f"{filename}:{line}"
    return filename or (f"line {line}" if line else None)


def where_statement(block, ast, filename=None):
    """``file:line`` of the parse-tree statement `ast` of CodeBlock
    `block` (a block may hold several statements)."""
    line = _ast_line(ast)
    if not line:
        return where(block, filename)
    if filename is None:
        filename = source_name(block)
    filename, line = original_line(_origin_holder(block), filename, line)
    return f"{filename}:{line}" if filename else f"line {line}"


def _origin_holder(node):
    """The nearest of `node`'s ancestors (itself included) that knows the
    origin of the parsed text's lines (the frontend gives it to the tree
    and to each routine and module of it, which copies keep), else the
    root."""
    while node is not None:
        if getattr(node, "adfort_origin", None) is not None:
            return node
        if node.parent is None:
            return node
        node = node.parent
    return node


def original_line(tree, filename, line):
    """(file, line) in the user's sources of `line` of the text parsed into
    `tree`: front-end rewrites that add or move lines (INCLUDE, restructured
    control flow) leave ``tree.adfort_origin``, one (file, line) per line of
    the parsed text, so messages still name the line the user wrote."""
    origin = getattr(tree, "adfort_origin", None)
    if origin and 0 < line <= len(origin) and origin[line - 1]:
        return origin[line - 1]
    return filename, line


def source_name(node):
    """Return the source file name recorded on the tree (set by the frontend)."""
    root = node.root if node is not None else None
    return getattr(root, "adfort_filename", None)


def where_module(module, filename=None):
    """``file:line`` of the MODULE statement of `module` (PSyIR keeps no
    parse tree of a module): the line is found in the file's text."""
    import re
    filename = source_name(module) or filename
    if not filename:
        return None
    pattern = re.compile(rf"^\s*module\s+{re.escape(module.name)}\s*(?:!.*)?$", re.IGNORECASE)
    try:
        with open(filename, encoding="utf-8", errors="replace") as handle:
            for number, text in enumerate(handle, 1):
                if pattern.match(text):
                    return f"{filename}:{number}"
    except OSError:
        pass
    return filename
