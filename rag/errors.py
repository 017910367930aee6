"""One exception family. Each message says what happened and what to do next.

The CLI (and later the HTTP app) converts these to user-facing messages in exactly one place.
"""


class RagError(Exception):
    """Base class: anything the user can act on."""


class InputError(RagError):
    """The question or a request parameter is unusable (empty, too long, bad filter)."""


class NoMatchError(InputError):
    """The filters (or the collection) asked for leave no paper to answer from."""


class FormatError(RagError):
    """An input file cannot be read as any known abstract format."""


class IndexNotFoundError(RagError):
    """There is no index yet, or it holds no papers."""


class IndexMismatchError(RagError):
    """The index was built by a different embedder or chunker than the settings ask for."""


class StoreError(RagError):
    """The data directory or the vector store cannot be read or written."""


class EmbeddingError(RagError):
    """The embedder could not be loaded or failed to embed."""


class LLMError(RagError):
    """The LLM endpoint failed: down, too slow, or it answered with something unusable."""


class PromptError(RagError):
    """A prompt template is missing or has the wrong placeholders."""


class ConfigError(RagError):
    """A setting is misspelt, out of its bounds, or contradicts another setting."""
