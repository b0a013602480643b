"""Web pages as text: the readable text of an HTML document, or of what a CSS selector picks.

The ``fetch_url`` tool and the scheduler's page monitors read pages the same way: scripts,
styles, navigation and page chrome dropped, one line per block, list items as "- ".
BeautifulSoup (and soupsieve, its CSS selector engine) are imported when a page is first
read: they take a fifth of a second to import, and most commands never read HTML.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from common.http import HttpResponse

if TYPE_CHECKING:
    from bs4 import BeautifulSoup, Tag

HTML_TYPES = ("text/html", "application/xhtml+xml")
TEXT_TYPES = ("application/json", "application/xml", "application/javascript", "text/")
_DROP_TAGS = ("script", "style", "noscript", "template", "svg", "iframe", "head", "nav")
_CHROME_TAGS = ("footer", "aside", "form", "button")
_BLOCK_TAGS = (
    "p", "div", "section", "article", "main", "header", "h1", "h2", "h3", "h4", "h5", "h6",
    "ul", "ol", "table", "tr", "blockquote", "pre", "figure", "dl", "dt", "dd",
)  # fmt: skip
MAX_SELECTOR_CHARS = 300


class NotText(ValueError):
    """A response that is neither a web page nor text (an image, a PDF, ...)."""


class SelectorError(ValueError):
    """A CSS selector that cannot be used; the message quotes it and says what works."""


def html_to_text(html: str) -> tuple[str, str]:
    """Return ``(title, readable text)`` of an HTML document.

    Scripts, styles, navigation and page chrome are dropped; the main content (``<main>``,
    ``<article>``, else ``<body>``) is kept with one line per block and list items as "- ".
    """
    soup = _soup(html)
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for tag in soup.find_all(_DROP_TAGS):
        tag.decompose()
    root = soup.find("main") or soup.find("article") or soup.body or soup
    for tag in root.find_all(_CHROME_TAGS):
        tag.decompose()
    return title, _readable(root)


def select_text(html: str, selector: str) -> list[str]:
    """The readable text of each element of ``html`` that ``selector`` picks, in page order
    (empty elements left out).

    Raises:
        SelectorError: when ``selector`` is not a CSS selector.
    """
    check_selector(selector)
    soup = _soup(html)
    for tag in soup.find_all(("script", "style", "noscript", "template")):
        tag.decompose()
    found = (_readable(element) for element in soup.select(selector))
    return [text for text in found if text]


def check_selector(selector: str) -> str:
    """Return ``selector`` when it is a CSS selector soupsieve understands.

    Raises:
        SelectorError: quoting it, with what went wrong and an example that works.
    """
    import soupsieve

    if not isinstance(selector, str) or not selector.strip():
        raise SelectorError(
            f"a CSS selector names elements of the page, e.g. '#price' or '.stock', "
            f"got {selector!r}"
        )
    if len(selector) > MAX_SELECTOR_CHARS:
        raise SelectorError(
            f"the CSS selector is {len(selector)} characters long; use at most "
            f"{MAX_SELECTOR_CHARS}, e.g. '#price'"
        )
    try:
        soupsieve.compile(selector.strip())
    except soupsieve.SelectorSyntaxError as exc:
        reason = str(exc).splitlines()[0]
        raise SelectorError(
            f"{selector!r} is not a CSS selector ({reason}); use one such as '#price', "
            "'.availability' or 'div.product span.price'"
        ) from None
    return selector.strip()


def page_text(response: HttpResponse) -> tuple[str, str]:
    """The ``(title, text)`` of a response: an HTML page's readable text, other text as it is.

    Raises:
        NotText: when the response is binary (an image, a PDF).
    """
    media = response.media_type
    if media in HTML_TYPES:
        return html_to_text(response.text)
    if media.startswith(TEXT_TYPES) or media.endswith(("+json", "+xml")):
        return "", response.text
    if not media and b"\0" not in response.content[:1024]:
        return "", response.text
    raise NotText(f"{media or 'unknown binary data'}, not a web page or text")


def _soup(html: str) -> BeautifulSoup:
    from bs4 import BeautifulSoup

    return BeautifulSoup(html, "html.parser")


def _readable(root: BeautifulSoup | Tag) -> str:
    """The text under ``root``, one line per block (the tree is changed on the way)."""
    for br in root.find_all("br"):
        br.replace_with("\n")
    for item in root.find_all("li"):
        item.insert_before("\n- ")
    for block in root.find_all(_BLOCK_TAGS):
        block.insert_before("\n")
        block.insert_after("\n")
    lines = (" ".join(line.split()) for line in root.get_text().splitlines())
    return "\n".join(line for line in lines if line)
