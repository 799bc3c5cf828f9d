"""Build, apply, export and check a patch series against pinned vLLM releases."""

__version__ = "0.1.0"
