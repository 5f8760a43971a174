"""The documentation's sources point at things that exist, checked without building it (``.ci/run`` builds it).

``docs/getting-started.md`` includes README sections between heading markers, and ``docs/examples.md`` runs the
scripts of ``docs/examples/``: a renamed README heading or a moved script would otherwise be found only by the
docs build.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
_OPTION = re.compile(r'^:(start-after|end-before): "(.*)"$', re.M)


def _includes(page: Path) -> list[tuple[str, str]]:
    return _OPTION.findall(page.read_text())


@pytest.mark.parametrize("page", sorted(DOCS.glob("*.md")), ids=lambda p: p.name)
def test_included_readme_markers_exist_once(page):
    readme = (ROOT / "README.md").read_text()
    for kind, marker in _includes(page):
        count = readme.count(marker)
        assert count == 1, f"{page.name}: {kind} marker {marker!r} occurs {count} times in README.md"


def test_included_sections_are_in_order():
    readme = (ROOT / "README.md").read_text()
    markers = _includes(DOCS / "getting-started.md")
    assert markers, "getting-started.md includes no README section"
    for (_, start), (_, end) in zip(markers[::2], markers[1::2]):
        assert readme.index(start) < readme.index(end), f"README section {start!r} must come before {end!r}"


def test_examples_exist():
    scripts = re.findall(r"^```\{flt-example\} (\S+)$", (DOCS / "examples.md").read_text(), re.M)
    assert len(scripts) == 3, scripts
    for script in scripts:
        assert (DOCS / script).is_file(), f"docs/examples.md runs {script}, which does not exist"
