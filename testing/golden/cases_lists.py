"""Golden phrases of the rule in ``agent/planner/rules_lists.py``: items added to a list."""

from __future__ import annotations

from testing.golden.check import Golden, Notes

CASES: dict[str, tuple[Golden, ...]] = {
    "items added to a list": (
        Golden("add milk to my shopping list", Notes("shopping list: milk", ("shopping",))),
        Golden(
            "put eggs and bread on the grocery list",
            Notes("grocery list: eggs and bread", ("grocery",)),
        ),
        Golden(
            "add call the bank to my to-do list", Notes("to-do list: call the bank", ("to-do",))
        ),
        Golden("please add 'Dune' to my reading list", Notes("reading list: Dune", ("reading",))),
        Golden("add oat milk to my list", Notes("list: oat milk", ("list",))),
    ),
}
