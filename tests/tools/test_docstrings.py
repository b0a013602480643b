from tools import parse_docstring


def test_google_style() -> None:
    doc = """Add a reminder.

    Longer prose that explains
    the tool.

    Args:
        when (str): When to remind,
            in the user's words.
        message: What to say.

    Returns:
        The confirmation.
    """
    parsed = parse_docstring(doc)
    assert parsed.summary == "Add a reminder."
    assert parsed.description == "Add a reminder. Longer prose that explains the tool."
    assert parsed.params == {
        "when": "When to remind, in the user's words.",
        "message": "What to say.",
    }


def test_numpy_style() -> None:
    doc = """Search the web.

    Parameters
    ----------
    query : str
        What to look for.
    limit : int, optional
        How many results.

    Returns
    -------
    list
    """
    parsed = parse_docstring(doc)
    assert parsed.summary == "Search the web."
    assert parsed.params == {"query": "What to look for.", "limit": "How many results."}


def test_sphinx_style() -> None:
    doc = """Fetch a page.

    :param url: The address.
    :param int max_chars: At most this
        many characters.
    :returns: The text.
    """
    parsed = parse_docstring(doc)
    assert parsed.summary == "Fetch a page."
    assert parsed.params == {"url": "The address.", "max_chars": "At most this many characters."}


def test_missing_docstring_gives_empty_parts() -> None:
    assert parse_docstring(None).summary == ""
    assert parse_docstring("").params == {}


def test_summary_spanning_two_lines_is_joined() -> None:
    assert (
        parse_docstring("Do a thing\nthat is long.\n\nMore.").summary == "Do a thing that is long."
    )
