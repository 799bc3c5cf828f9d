"""Errors whose text is the message the user sees."""


class ForkError(Exception):
    """A failure the user can act on: one line, then an indented remedy."""

    def __init__(self, message: str, remedy: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.remedy = remedy

    def __str__(self) -> str:
        if not self.remedy:
            return self.message
        remedy = "\n".join("  " + line for line in self.remedy.splitlines())
        return f"{self.message}\n{remedy}"


class PatchDoesNotApply(ForkError):
    """A patch of the series does not apply exactly (zero fuzz)."""


class NetworkError(ForkError):
    """The package index or the download could not be reached."""
