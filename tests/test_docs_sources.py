"""The documentation's sources point at things that exist and state what the code does, checked without building it
(``.ci/run`` builds it).

``docs/getting-started.md`` includes README sections between heading markers, ``docs/index.md`` lists every guide of
``docs/guide/``, and ``docs/examples.md`` runs the scripts of ``docs/examples/``: a renamed README heading, a guide left
out or a moved script would otherwise be found only by the docs build. The guides' prose keeps to 120 characters a
line; their tables and lists name what the code has (every registered system, the parser's functions, the smallest
system and its claim count, the files they cite); the Python quick start is a doctest that runs; and the CLI quick
start shows what each command prints now.
"""

import doctest
import math
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
GUIDE = DOCS / "guide"
PAGES = sorted([*DOCS.glob("*.md"), *GUIDE.glob("*.md")])
_OPTION = re.compile(r'^:(start-after|end-before): "(.*)"$', re.M)
_FENCE = re.compile(r"^```(.*)$")


def _includes(page: Path) -> list[tuple[str, str]]:
    return _OPTION.findall(page.read_text(encoding="utf-8"))


def _page(name: str) -> str:
    return (GUIDE / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_included_readme_markers_exist_once(page):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for kind, marker in _includes(page):
        count = readme.count(marker)
        assert count == 1, f"{page.name}: {kind} marker {marker!r} occurs {count} times in README.md"


def test_included_sections_are_in_order():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    markers = _includes(DOCS / "getting-started.md")
    assert markers, "getting-started.md includes no README section"
    for (_, start), (_, end) in zip(markers[::2], markers[1::2]):
        assert readme.index(start) < readme.index(end), f"README section {start!r} must come before {end!r}"


def test_examples_exist():
    scripts = re.findall(r"^```\{flt-example\} (\S+)$", (DOCS / "examples.md").read_text(), re.M)
    assert len(scripts) == 3, scripts
    for script in scripts:
        assert (DOCS / script).is_file(), f"docs/examples.md runs {script}, which does not exist"


def test_every_guide_is_in_the_table_of_contents():
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^guide/([\w-]+)$", index, re.M))
    assert listed == {p.stem for p in GUIDE.glob("*.md")}, listed ^ {p.stem for p in GUIDE.glob("*.md")}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_prose_lines_are_at_most_120_characters(page):
    """Prose and directives (a list-table's cells) are wrapped; a plain code block shows code or a command's output
    verbatim and may be wider."""
    long, verbatim = [], False
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        fence = _FENCE.match(line)
        if fence:
            verbatim = not verbatim and not fence.group(1).startswith("{")
            continue
        if not verbatim and len(line) > 120:
            long.append(f"{number}: {len(line)}")
    assert not long, f"{page.name}: lines longer than 120 characters: {long}"


#: The docs build's output folders (``.gitignore``): a page may cite them before a build made them.
BUILT = ("docs/_build", "docs/_generated")


@pytest.mark.parametrize("page", [*PAGES, ROOT / "README.md"], ids=lambda p: p.name)
def test_cited_files_exist(page):
    """Every path of the repository a page cites in backticks (``flt_theory/...``, ``tests/...``) exists, except the
    docs build's own output folders (:data:`BUILT`, ignored by git: they exist only after a build)."""
    cited = re.findall(r"`((?:flt_theory|tests|derivations|benchmarks|docs|\.ci)/[^`\s]*)`", page.read_text("utf-8"))
    missing = [p for p in cited if "<" not in p and not p.startswith(BUILT) and not (ROOT / p).exists()]
    assert not missing, f"{page.name} cites paths that do not exist: {missing}"


def test_the_systems_table_names_every_registered_system_once():
    from flt_theory.systems.registry import systems

    table = re.search(r"```\{list-table\}\n(.*?)```", _page("systems.md"), re.S).group(1)
    first_cells = re.findall(r"^\* - (.*)$", table, re.M)[1:]  # the header row names no system
    named = [name for cell in first_cells for name in re.findall(r"`([^`]+)`", cell)]
    assert sorted(named) == sorted(s.name for s in systems()), named


def test_the_model_system_is_the_smallest_and_its_claims_are_counted():
    """"Adding a system" points at the system folder with the fewest lines, and says how many claims it declares."""
    from flt_theory.systems.registry import registered_claims

    folders = [p for p in (ROOT / "flt_theory" / "systems").iterdir() if (p / "declaration.py").is_file()]
    size = {p.name: sum(len(f.read_text(encoding="utf-8").splitlines()) for f in p.glob("*.py")) for p in folders}
    smallest = min(size, key=size.__getitem__)
    text = _page("adding-a-system.md")
    model = re.search(r"The model to copy is the smallest real system, `flt_theory/systems/(\w+)/`", text)
    assert model and model.group(1) == smallest, (model and model.group(1), sorted(size.items(), key=lambda i: i[1]))
    words = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}
    stated = words[re.search(r"`declaration\.py` assembles (\w+) claims", text).group(1)]
    system = smallest.replace("_", "-")
    assert stated == sum(1 for c in registered_claims() if c.system == system), stated


def test_the_target_grammar_names_the_parser_s_functions():
    from flt_theory.symbolic.parser import FUNCTIONS

    sentence = re.search(r"the functions (.*?) \(the parser's whole list", _page("python.md"), re.S).group(1)
    assert re.findall(r"`(\w+)`", sentence) == sorted(FUNCTIONS)


def test_the_python_quick_start_runs():
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", _page("python.md"), re.S) if b.startswith(">>>")]
    test = doctest.DocTestParser().get_doctest(block, {}, "python.md", str(GUIDE / "python.md"), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 5


def _commands(page: str) -> list[tuple[str, str]]:
    """(command, output) for every ``$ flt ...`` line of the page's plain code blocks that shows its output."""
    found = []
    for block in re.findall(r"^```\n(.*?)^```", page, re.S | re.M):
        for part in re.split(r"(?m)^\$ ", block)[1:]:
            command, _, output = part.partition("\n")
            if output.strip():
                found.append((command, output.rstrip("\n")))
    return found


def _numbers_close(shown: str, printed: str) -> bool:
    """The same text, numbers allowed to differ by 2% (simulated digits move with torch's build and thread count)."""
    pattern = r"-?\d+\.\d+"
    if re.sub(pattern, "#", shown) != re.sub(pattern, "#", printed):
        return False
    pairs = zip(re.findall(pattern, shown), re.findall(pattern, printed))
    return all(math.isclose(float(a), float(b), rel_tol=0.02, abs_tol=2e-3) for a, b in pairs)


def test_the_cli_quick_start_shows_what_each_command_prints():
    from flt_theory.cli import cli

    runner = CliRunner()
    commands = _commands(_page("cli.md"))
    assert len(commands) >= 7, [c for c, _ in commands]
    for command, shown in commands:
        args = shlex.split(command)
        assert args[0] == "flt", command
        result = runner.invoke(cli, args[1:])
        printed = result.output.rstrip("\n")
        if args[1] == "simulate":
            assert result.exit_code == 0 and _numbers_close(shown, printed), f"$ {command}\n{printed}"
        else:
            assert printed == shown, f"$ {command} prints now:\n{printed}"
            assert result.exit_code == (2 if shown.startswith("flt: error:") else 0), command
