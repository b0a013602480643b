"""Stopping and cutting a reply that loops or recites its prompt (``agent.llm.guard``)."""

from agent.llm import MAX_REPEATS, ReplyGuard

CATALOG = [
    "Tools you can use:",
    "- add_reminder(when: string, message: string): Remind the user of something at a time.",
    "    when: When, in the user's own words: 'in 5 minutes', 'tomorrow at 9am'.",
]


def decode(guard: ReplyGuard, text: str) -> str:
    """Feed ``text`` a few characters at a time, as a model writes it; return what was written
    when the guard said stop."""
    written = ""
    for start in range(0, len(text), 3):
        written += text[start : start + 3]
        if guard.feed(text[start : start + 3]):
            break
    return written


def test_a_sentence_said_over_and_over_stops_the_decoding_and_is_kept_once() -> None:
    guard = ReplyGuard()
    looping = "I fixed it. " + "I'm sorry for any other mistakes. " * 30

    written = decode(guard, looping)

    assert len(written) < len("I fixed it. ") + 34 * (MAX_REPEATS + 2)
    assert guard.cut(written) == "I fixed it. I'm sorry for any other mistakes."


def test_a_word_repeated_without_spaces_is_stopped() -> None:
    guard = ReplyGuard()

    written = decode(guard, "Use this: " + "ArgumentParser(" * 500)

    assert written.count("ArgumentParser(") <= 2 * (MAX_REPEATS + 1)
    assert guard.cut(written).count("ArgumentParser(") <= 2


def test_a_recited_catalog_stops_the_decoding_and_is_cut_with_its_heading() -> None:
    guard = ReplyGuard(CATALOG)
    recital = "Sure.\n" + "\n".join(CATALOG) + "\nmore of the catalog\n" * 20

    written = decode(guard, recital)

    assert "more of the catalog" not in written
    assert guard.cut(written) == "Sure."


def test_an_ordinary_answer_is_left_alone() -> None:
    guard = ReplyGuard(CATALOG)
    answer = (
        "Here are three ideas:\n- stretch at 10am\n- stretch at noon\n- stretch at 3pm\n"
        "Tools help, and reminders too."
    )

    assert decode(guard, answer) == answer
    assert guard.cut(answer) == answer
