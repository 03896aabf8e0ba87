"""Keeps the plugin author's documentation from drifting from the SDK it documents.

    check_sdk_docs.py SOURCE_DIR      check the tree
    check_sdk_docs.py --self-test     the checks fail on made-up drift

Over docs/writing-plugins.md, sdk/README.md and every template README (sdk/templates/basis/,
sdk/templates/*/), it fails when
  1. a header `radial/....hpp` is named that the SDK does not install (framework/include,
     sdk/include, and the Radial::testing headers sdk/testing/CMakeLists.txt installs);
  2. a macro RADIAL_* is named that no installed header, SDK CMake file or framework source
     (for environment variables) mentions;
  3. a function or type is named in code (`name(...)`, `ns::name`) that no installed header or
     SDK CMake file declares;
  4. a name is given with its header, "`name` (`radial/x.hpp`)" or "`name` in `radial/x.hpp`",
     and that header does not mention the name;
  5. "one of the N interfaces" disagrees with the number of slots (enum class Slot);
  6. a template README does not name a RADIAL_PLUGIN* macro its sources use, or names a file of
     the template that does not exist.
"""

import pathlib
import re
import sys

NUMBERS = {"four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}


def installed_headers(root):
    """{"radial/x.hpp": text} of every header an installation holds."""
    out = {}
    for base in (root / "framework" / "include", root / "sdk" / "include"):
        for path in base.rglob("*.hpp*"):
            name = str(path.relative_to(base)).removesuffix(".in")
            out[name] = path.read_text(errors="replace")
    support = root / "sdk/testing"
    listed = (support / "CMakeLists.txt").read_text()
    for rel in re.findall(r"include/(radial/testing/[\w./-]+\.hpp)", listed):
        out[rel] = (support / "include" / rel).read_text(errors="replace")
    return out


def sdk_cmake(root):
    return "\n".join(p.read_text() for p in (root / "sdk" / "cmake").glob("*"))


def framework_sources(root):
    return "\n".join(p.read_text(errors="replace") for p in (root / "framework" / "src").rglob("*.cpp"))


def docs(root):
    files = [root / "docs" / "writing-plugins.md", root / "sdk" / "README.md",
             root / "sdk/templates/basis/README.md"]
    files += sorted((root / "sdk" / "templates").glob("*/README.md"))
    return list(dict.fromkeys(f for f in files if f.exists()))


def slot_count(headers):
    enum = re.search(r"enum class Slot \{([^}]*)\}", headers["radial/plugin/registration.hpp"])
    return len([s for s in enum.group(1).split(",") if s.strip()])


def word_in(name, text):
    return re.search(r"(?<![\w])" + re.escape(name) + r"(?![\w])", text) is not None


def check(root):
    problems = []
    headers = installed_headers(root)
    all_headers = "\n".join(headers.values())
    cmake = sdk_cmake(root)
    sources = framework_sources(root)
    slots = slot_count(headers)
    for doc in docs(root):
        text = doc.read_text()
        where = str(doc.relative_to(root))
        spans = re.findall(r"`([^`\n]+)`", text)
        # 1. headers
        for header in sorted(set(re.findall(r"\bradial/[\w/]+\.hpp\b", text))):
            if header not in headers:
                problems.append(f"{where}: names {header}, which the SDK does not install")
        # 2. macros
        for macro in sorted(set(re.findall(r"\bRADIAL_[A-Z0-9_]+\b", text))):
            if not (macro in all_headers or macro in cmake or macro in sources):
                problems.append(f"{where}: names {macro}, which no installed header, SDK CMake "
                                "file or framework source mentions")
        # a template's README may also name what its own sources declare
        template = doc.parent.parent.name in ("sdk", "templates") and doc.parent.name != "sdk"
        own = "\n".join(p.read_text() for p in doc.parent.rglob("*")
                        if p.suffix in (".cpp", ".hpp")) if template else ""
        # 3. functions and types named in code
        for span in spans:
            m = re.fullmatch(r"((?:[A-Za-z_]\w*::)*)([A-Za-z_]\w*)(<[^>]*>)?(\(.*\))?", span.strip())
            if not m or not (m.group(1) or m.group(4)):
                continue
            name = m.group(2)
            if not (word_in(name, all_headers) or word_in(name, cmake) or word_in(name, own)):
                problems.append(f"{where}: names `{span}`, but no installed header or SDK CMake "
                                f"file declares {name}")
        # 4. names given with their header
        for name, header in re.findall(
                r"`(?:[\w:]+::)?(\w+)(?:\([^`]*\))?`(?:,? and `[^`]*`)? (?:\(|in )`(radial/[\w/]+\.hpp)`",
                text):
            if header in headers and not word_in(name, headers[header]):
                problems.append(f"{where}: gives `{name}` with {header}, which does not "
                                f"mention it")
        # 5. the number of interfaces
        for word in re.findall(r"one of the (\w+) interfaces", text):
            if NUMBERS.get(word) != slots:
                problems.append(f"{where}: says \"one of the {word} interfaces\"; there are "
                                f"{slots} slots (enum class Slot)")
        # 6. a template's README and its sources
        if template:
            for macro in sorted(set(re.findall(r"\b(RADIAL_PLUGIN\w*)\(", own))):
                if not word_in(macro, text):
                    problems.append(f"{where}: the template uses {macro}, which its README "
                                    "does not name")
            for macro in sorted(set(re.findall(r"\b(RADIAL_PLUGIN\w*)\b", text))):
                if macro.startswith("RADIAL_PLUGIN_") and macro not in ("RADIAL_PLUGIN_COMPONENT",):
                    continue  # RADIAL_PLUGIN_PATH, RADIAL_PLUGIN_FILE, ...: not the export macro
                if not re.search(r"\b" + macro + r"\(", own):
                    problems.append(f"{where}: names {macro}, which the template does not use")
            files = {str(p.relative_to(doc.parent)) for p in doc.parent.rglob("*")}
            for span in spans:
                if span.startswith("radial/") or not re.fullmatch(r"[\w./-]+\.(cpp|hpp|txt)", span):
                    continue
                # "name.hpp/.cpp" names two files
                m = re.fullmatch(r"(.*)\.(hpp|cpp)/\.(hpp|cpp)", span)
                names = [f"{m.group(1)}.{m.group(2)}", f"{m.group(1)}.{m.group(3)}"] if m else [span]
                for name in names:
                    if name not in files:
                        problems.append(f"{where}: names {name}, which the template does not have")
    return problems


def self_test():
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        (root / "framework/include/radial").mkdir(parents=True)
        (root / "framework/src").mkdir(parents=True)
        (root / "sdk/include/radial/sdk").mkdir(parents=True)
        (root / "sdk/cmake").mkdir(parents=True)
        (root / "sdk/templates/basis").mkdir(parents=True)
        (root / "sdk/testing/include/radial/testing").mkdir(parents=True)
        (root / "docs").mkdir()
        slots = root / "framework/include/radial/plugin/registration.hpp"
        slots.parent.mkdir(parents=True, exist_ok=True)
        slots.write_text(
            "enum class Slot { A, B, C };\nvoid add_tolerance();\n")
        (root / "framework/include/radial/other.hpp").write_text("void other();\n")
        (root / "sdk/include/radial/sdk/plugin.hpp").write_text(
            "#define RADIAL_PLUGIN(x)\n#define RADIAL_PLUGIN_COMPONENT(x)\n")
        (root / "sdk/cmake/RadialPlugin.cmake").write_text("function(radial_add_plugin)\n")
        (root / "sdk/testing/CMakeLists.txt").write_text("")
        (root / "sdk/templates/basis/register.cpp").write_text("RADIAL_PLUGIN_COMPONENT(x)\n")
        (root / "sdk/templates/basis/README.md").write_text(
            "the id, in `RADIAL_PLUGIN`; see `a.cpp` and `register.cpp`\n")
        (root / "docs/writing-plugins.md").write_text(
            "one of the five interfaces; `radial/gone.hpp`; `RADIAL_NOPE`; `radial::missing()`;"
            " `add_tolerance` (`radial/other.hpp`); `radial_add_plugin()` fine\n")
        found = "\n".join(check(root))
        expected = ["radial/gone.hpp", "RADIAL_NOPE", "declares missing",
                    "gives `add_tolerance` with radial/other.hpp", "\"one of the five interfaces\"",
                    "uses RADIAL_PLUGIN_COMPONENT, which its README", "names a.cpp",
                    "names RADIAL_PLUGIN, which the template does not use"]
        missing = [e for e in expected if e not in found]
        if missing or "radial_add_plugin" in found:
            print("self-test failed; found:\n" + found + "\nmissing: " + ", ".join(missing))
            return 1
    print("self-test passed")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    problems = check(pathlib.Path(sys.argv[1]))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
