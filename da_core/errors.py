"""The errors every layer raises: bad input (located by file, line, field) and a campaign that cannot be built."""
from __future__ import annotations


class InputError(ValueError):
    """Bad input, located by file, line (1-based) and field, with a message a researcher can act on."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 field: str | None = None) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.field = field
        super().__init__(self.location_prefix() + message)

    def location_prefix(self) -> str:
        """``file:line: field 'x': `` as far as known, so editors and terminals can jump to it."""
        parts = []
        if self.file:
            parts.append(str(self.file))
        if self.line is not None:
            parts.append(str(self.line))
        prefix = ":".join(parts)
        if self.field:
            prefix = f"{prefix}: field '{self.field}'" if prefix else f"field '{self.field}'"
        return f"{prefix}: " if prefix else ""


class BuildError(ValueError):
    """The campaign cannot be built; the message says what to change (text, font, size of the test set)."""
