"""report.html is self-contained: formulas rendered at report time (mathtext SVG), no remote resource,
and it shows rendered formulas in a browser with the network off (headless Chromium, where installed)."""

import base64
import re
import shutil
import subprocess
from html.parser import HTMLParser

import pytest

from flt_theory.checking import check
from flt_theory.report.markdown import formula_html
from flt_theory.systems.registry import session_store

CLAIMS = ["giant-step/norm-law", "giant-step/rank-one-update"]


class _Refs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs, self.tags = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("src", "href", "srcset", "data", "poster", "action") and value:
                self.refs.append((tag, name, value))


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    directory = tmp_path_factory.mktemp("report")
    check(CLAIMS, report_dir=directory, store=session_store())  # the measurements the session holds
    return directory


def test_no_remote_resource(report):
    page = (report / "report.html").read_text(encoding="utf-8")
    refs = _Refs()
    refs.feed(page)
    assert "script" not in refs.tags and "mathjax" not in page.lower()
    remote = [r for r in refs.refs if re.match(r"\s*(https?:)?//", r[2], re.I)]
    assert remote == []
    assert not re.search(r"url\(\s*['\"]?(https?:)?//", page, re.I)  # nor in the style sheet
    local = [r for r in refs.refs if r[0] == "img" and not r[2].startswith("data:")]
    assert all((report / value).is_file() for _, _, value in local)


def test_every_law_is_an_embedded_svg(report):
    page = (report / "report.html").read_text(encoding="utf-8")
    images = re.findall(r"<img class='law' src='data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)' alt='([^']*)'", page)
    assert len(images) == len(CLAIMS)
    for data, alt in images:
        svg = base64.b64decode(data).decode("utf-8")
        assert "<svg" in svg and "<path" in svg and "\\" in alt  # glyphs as paths; the LaTeX as alt text
    assert "\\[" not in page and "$$" not in page


def test_formula_mathtext_cannot_parse_is_plain_text():
    html = formula_html(r"L \geq \begin{cases} \frac{\tau}{2} & \text{for}\: d \leq n \end{cases}")
    assert "<img" not in html and "τ/2" in html and "\\frac" not in html.split(">", 1)[1]
    assert formula_html(r"\tfrac1N \sum_i \|w_i\| \le B").startswith("<img class='law'")  # spelled for mathtext


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
_OFFLINE = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
            "--proxy-server=socks5://127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost",
            "--disable-background-networking", "--allow-file-access-from-files"]

_PROBE = """<script>
window.addEventListener('load', () => {
  const laws = [...document.querySelectorAll('img.law')];
  const shown = laws.filter(i => i.complete && i.naturalWidth > 0 && i.naturalHeight > 0);
  const figures = [...document.querySelectorAll('figure img')].filter(i => i.complete && i.naturalWidth > 0);
  const out = document.createElement('pre'); out.id = 'probe';
  out.textContent = `laws ${shown.length}/${laws.length} figures ${figures.length}`;
  document.body.appendChild(out);
});
</script>"""


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian package 'chromium')")
def test_chromium_offline_shows_rendered_formulas(report, tmp_path):
    page = (report / "report.html").read_text(encoding="utf-8")
    probe = report / "probe.html"
    probe.write_text(page.replace("</body>", _PROBE + "</body>"), encoding="utf-8")
    try:
        dom = subprocess.run([CHROMIUM, *_OFFLINE, "--virtual-time-budget=5000", "--dump-dom", probe.as_uri()],
                             capture_output=True, text=True, timeout=120).stdout
    finally:
        probe.unlink()
    found = re.search(r"laws (\d+)/(\d+) figures (\d+)", dom)
    assert found, dom[-2000:]
    shown, total, figures = map(int, found.groups())
    assert shown == total == len(CLAIMS) and figures >= len(CLAIMS)
    shot = tmp_path / "report.png"
    subprocess.run(
        [CHROMIUM, *_OFFLINE, "--window-size=1100,1600", f"--screenshot={shot}", (report / "report.html").as_uri()],
        capture_output=True,
        timeout=120,
    )
    assert shot.is_file() and shot.stat().st_size > 20_000
