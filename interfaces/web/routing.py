"""What the routers share: a listing's page (``limit``, ``offset``, the ``Link`` to the next
one) and the error answers they document."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Query, Request, Response

from interfaces.web.models import ErrorOut

T = TypeVar("T")

PAGE = 100
"""Items per page of a listing unless ``limit`` says otherwise."""
MAX_PAGE = 500
Limit = Annotated[int, Query(ge=1, le=MAX_PAGE, description="Items per page (1-500).")]
Offset = Annotated[
    int, Query(ge=0, le=10_000_000, description="How many items to skip (the page's start).")
]
ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorOut},
    404: {"model": ErrorOut},
    409: {"model": ErrorOut},
}
"""The refusals every route over the caller's things may answer."""


class Pager:
    """One page of a listing: sets the ``Link`` header of the next page when there is one.

    Each route reads one item more than ``limit``; its presence says that a next page
    exists, without counting them all.
    """

    def __init__(self, request: Request, response: Response) -> None:
        self._request = request
        self._response = response

    def of(self, found: Sequence[T], limit: int, offset: int) -> Sequence[T]:
        """The first ``limit`` of ``found``; a ``Link`` to the next page if there were more."""
        if len(found) > limit:
            following = self._request.url.include_query_params(offset=offset + limit, limit=limit)
            self._response.headers["Link"] = f'<{following.path}?{following.query}>; rel="next"'
        return found[:limit]


Page = Annotated[Pager, Depends(Pager)]
