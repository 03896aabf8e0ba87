#!/usr/bin/env python3
"""No function longer than 120 lines in framework/, plugins/, sdk/ or apps/: a function that
long mixes ideas; split it where they split (as Ceres splits its trust-region minimiser).

  check_function_length.py SOURCE_DIR       lists each function over the limit, fails if any
  check_function_length.py --self-test      the check on made-up sources: it must fail where it should

A function's length is its lines from the first line of its signature to its closing brace
(C++) or from `def` to its last line (Python). Lambdas and local classes count towards the
function that holds them. C++ is read without a compiler: comments, strings and preprocessor
lines are blanked, then each top-level brace block (outside namespaces, classes and
initialisers) whose header ends in a parameter list is a function."""
import ast
import os
import re
import sys
import tempfile

LIMIT = 120
FOLDERS = ("framework", "plugins", "sdk", "apps")
CXX_ENDINGS = (".cpp", ".hpp", ".h", ".cc", ".hh", ".cxx", ".ipp", ".in")
EXEMPT: set = set()  # no file is exempt
SKIPPED_DIRS = {".git", "__pycache__", "node_modules"}

CONTAINER = re.compile(r"\b(namespace|class|struct|union|enum)\b")
EXTERN_C = re.compile(r'\bextern\s*$')


def blank_cxx(text):
    """text with comments, string and character literals and preprocessor lines replaced by
    spaces (newlines kept, so line numbers stay)."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#" :
            # A preprocessor line, with its continuations.
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        if c == "\n":
            line_start = True
            out.append(c)
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:end]))
            i = end
            continue
        raw = re.match(r'(?:u8|u|U|L)?R"([^(\s]*)\(', text[i:i + 40])
        if raw and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            close = ")" + raw.group(1) + '"'
            end = text.find(close, i + raw.end())
            end = n if end < 0 else end + len(close)
            out.append('"' + "".join(ch if ch == "\n" else " " for ch in text[i + 1:end - 1]) + '"')
            i = end
            continue
        if c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum())):
            # A string or character literal (a digit separator 1'000 is not one).
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + (c if j < n else ""))
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def cxx_functions(text):
    """(name, first line, last line) of each function definition in C++ source text."""
    code = blank_cxx(text)
    functions = []
    # Each open block: (kind, header start offset); kind is 'container', 'function' or 'other'.
    stack = []
    header_start = 0
    for i, c in enumerate(code):
        if c in ";":
            if not any(kind in ("function", "other") for kind, _ in stack):
                header_start = i + 1
        elif c == "{":
            inside = any(kind in ("function", "other") for kind, _ in stack)
            if inside:
                stack.append(("other", i))
                continue
            header = code[header_start:i]
            flat = " ".join(header.split())
            if CONTAINER.search(flat.split("(")[0]) or EXTERN_C.search(flat) or flat.endswith('""'):
                kind = "container"
            elif re.search(r"\)[^()]*$", flat) and "=" not in flat.split("(")[0].replace("operator=", "").replace("==", ""):
                kind = "function"
            else:
                kind = "other"
            stack.append((kind, header_start))
            if kind == "container":
                header_start = i + 1
        elif c == "}":
            if not stack:
                continue
            kind, start = stack.pop()
            if kind == "function":
                # The signature's first line: skip the blank lines before it.
                while start < i and code[start].isspace():
                    start += 1
                first = code.count("\n", 0, start) + 1
                last = code.count("\n", 0, i) + 1
                header = " ".join(code[start:code.find("{", start)].split())
                name = re.findall(r"([~\w:]+(?:operator\s*\S+?)?)\s*\(", header)
                functions.append((name[0] if name else header[:40], first, last))
            if not any(k in ("function", "other") for k, _ in stack):
                header_start = i + 1
    return functions


def python_functions(text):
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    found = []

    def visit(node, inside):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if not inside:
                    first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                    found.append((child.name, first, child.end_lineno))
                visit(child, True)
            else:
                visit(child, inside)
    visit(tree, False)
    return found


def long_functions(root):
    """(relative path, name, first line, length) of each function over LIMIT lines."""
    found = []
    for top in FOLDERS:
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
            for name in sorted(files):
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                if rel in EXEMPT:
                    continue
                if name.endswith(CXX_ENDINGS):
                    finder = cxx_functions
                elif name.endswith(".py"):
                    finder = python_functions
                else:
                    continue
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                for function, first, last in finder(text):
                    length = last - first + 1
                    if length > LIMIT:
                        found.append((rel, function, first, length))
    return found


def check(root):
    return [f"{rel}:{first}: {name} is {length} lines (at most {LIMIT}); split it where its "
            "ideas split" for rel, name, first, length in long_functions(root)]


def self_test():
    body = "\n".join(f"  x += {i};" for i in range(LIMIT))
    short = "\n".join(f"  x += {i};" for i in range(LIMIT - 3))
    cases = {
        # A long function, with braces and quotes in comments and strings that must not count.
        "framework/src/long.cpp": (
            "namespace radial {\nnamespace {\nint helper(int x) {\n  return x; // }\n}\n}\n"
            "int Reader::search(const std::string& s) const {\n  int x = 0;\n"
            "  const char* t = \"}{\";\n  auto f = [&](int y) { return y; };\n"
            + body + "\n  return x;\n}\n}\n", ["Reader::search"]),
        # Exactly the limit: passes. A long table initialiser and a long class are no function.
        "plugins/p/ok.cpp": (
            "int ok(int x) {\n" + short + "\n  return x;\n}\n"
            "const int table[] = {\n" + ",\n".join(["1"] * 200) + "};\n"
            "struct S {\n" + "\n".join(f"  int m{i};" for i in range(200)) + "\n};\n", []),
        # A long method defined in a class body.
        "sdk/include/h.hpp": (
            "class C {\n public:\n  int f(int x) const override {\n" + body + "\n    return x;\n  }\n};\n",
            ["f"]),
        "apps/tool.py": ("def run(x):\n" + "\n".join(f"    x += {i}" for i in range(LIMIT)) + "\n",
                         ["run"]),
        # Outside the four folders: not read.
        "tests/t.cpp": ("int t(int x) {\n" + body + "\n}\n", []),
    }
    failures = 0
    with tempfile.TemporaryDirectory() as root:
        for rel, (text, _) in cases.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        found = long_functions(root)
        for rel, (_, names) in cases.items():
            got = [name for r, name, _, _ in found if r == rel]
            if got != names:
                print(f"self-test: {rel}: expected {names}, found {got}")
                failures += 1
    print("self-test:", "failed" if failures else "passed")
    return 1 if failures else 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) != 2:
        print(__doc__)
        return 2
    failures = check(argv[1])
    for line in failures:
        print(line)
    print(f"{len(failures)} function(s) over {LIMIT} lines")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
