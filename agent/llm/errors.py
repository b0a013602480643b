"""The LLM backends' exceptions.

    LLMError                     base of everything a backend raises on purpose
    ├── LLMAuthError             the server refused the API key (401/403)
    ├── LLMNotFoundError         the model or the endpoint does not exist (404)
    ├── LLMRateLimitError        still rate limited (429) after every retry
    ├── LLMServerError           the server kept failing (5xx) after every retry
    ├── LLMTimeoutError          no answer within the configured timeout
    ├── LLMConnectionError       the server cannot be reached at all
    ├── LLMRequestError          the server rejected the request (other 4xx)
    │   └── ToolsUnsupportedError  it rejected native ``tools``; retry the round in contract mode
    ├── LLMResponseError         the answer is unusable (not JSON, no choices, wrong shape)
    ├── LLMModelError            a local model cannot be used (no file, not GGUF, no chat
    │                            template, too little memory, llama-cpp-python missing)
    └── ContextTooSmallError     the request does not fit in the model's context window

Every message says what happened, quotes what the server said, and names the setting that
fixes it when there is one, so an interface can show ``str(error)`` as it is.
"""

from __future__ import annotations


class LLMError(Exception):
    """Base class of the LLM backends' errors."""


class LLMAuthError(LLMError):
    """The server refused the credentials."""


class LLMNotFoundError(LLMError):
    """The model or the endpoint does not exist on that server."""


class LLMRateLimitError(LLMError):
    """The server kept answering 429 after every retry."""


class LLMServerError(LLMError):
    """The server kept failing with 5xx after every retry."""


class LLMTimeoutError(LLMError):
    """The server did not answer within the timeout."""


class LLMConnectionError(LLMError):
    """The server could not be reached."""


class LLMRequestError(LLMError):
    """The server rejected the request as invalid."""


class ToolsUnsupportedError(LLMRequestError):
    """The server (or model) does not accept native ``tools``.

    An ``AUTO`` backend raises it after switching itself to ``ToolMode.CONTRACT``: the caller
    rebuilds the round for the text contract (catalog in the system prompt, no ``tools``) and
    sends it again. A ``NATIVE`` backend raises a plain ``LLMRequestError`` instead.
    """


class LLMResponseError(LLMError):
    """The server answered, but not with a usable chat completion."""


class LLMModelError(LLMError):
    """A local model file cannot be loaded or used; the message names the setting to fix."""


class ContextTooSmallError(LLMError):
    """The request does not fit in the model's context window, even cut to its essentials.

    Attributes:
        needed: The context window, in tokens, that the request needs (prompt and answer).
        context: The model's context window in tokens.
    """

    def __init__(self, message: str, *, needed: int, context: int) -> None:
        super().__init__(message)
        self.needed = needed
        self.context = context
