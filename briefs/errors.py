"""The one shape of an input error the API, the dashboard and the commands all report."""

from django.utils.translation import gettext


class FieldInvalid(ValueError):
    """The request cannot be carried out as asked; ``field`` names the offending input and
    ``message`` is safe to show to its sender."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field
        self.message = message

    def reader_message(self) -> str:
        """``message`` in the active language: the message is a msgid of the catalog (English,
        as the API and commands give it); one that is not, a count built in, stays English."""
        return gettext(str(self.message))
