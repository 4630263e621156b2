"""The world of the sharing tests: alice owns briefs, mallory is another user, a client without
a session stands for anyone a link was given to."""

import pytest
from django.test import Client


@pytest.fixture
def anonymous():
    return Client()


# Shaped like a secret or not, none of these opens anything.
BAD_SECRETS = [
    "A" * 43,  # the right shape, no such secret
    "A" * 42,
    "A" * 44,
    "x" * 10_000,
    "秘密" * 20,
    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA%0A",  # 42 + a newline
    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA%00",
    "..%2F..%2Fadmin",
    "%27%20OR%201%3D1--",
]
