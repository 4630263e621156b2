"""The one shape of an input error the API, the dashboard and the commands all report."""


class FieldInvalid(ValueError):
    """The request cannot be carried out as asked; ``field`` names the offending input and
    ``message`` is safe to show to its sender."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field
        self.message = message
