"""Names an English question puts in a subject's place without a marker: after a question's
auxiliary ("What did elonmusk post"), before a kind of account ("the golang organization"),
before the artifacts a name publishes ("fabric-api versions"), as the subject of a clause after
"when" ("when shroud goes live"), after "following" ("who started following antfu"). Read by
``agent.routes.entities``.
"""

import re

from agent.routes.forms import CJK_RE, POSSESSIVE_RE, WORD_TOKEN_RE
from agent.routes.words import GENERIC, PEOPLE, usable
from agent.vocabulary import CLAUSE_PRONOUNS, EN_KIND_NOUNS, LIGHT_VERBS, OWNERS

# A question's auxiliary: after a question word (or first), the word it is followed by is the
# subject of the question's verb ("What did elonmusk post", "Has sama tweeted").
AUXILIARIES = frozenset(
    str.split("did does do has have had is was are were will would can could should")
)
PASSIVE_AUXILIARIES = frozenset(str.split("is was are were been be has have had"))
ARTIFACTS = frozenset(str.split("release releases version versions commits tags builds changelog"))
SUBORDINATORS = frozenset(str.split("when whenever once if after moment until till"))
CONTRACTED = frozenset(("what's", "who's", "where's", "whats"))
QUESTION_WORDS = frozenset(str.split("what which who when where why how"))
# What a clause after them is all of ("everything patio11 submits", "stories pg has
# submitted", "what sindresorhus stars"): what someone does
EVERYTHING = frozenset(("everything", "anything", "whatever"))
WHOLE_WORDS = EVERYTHING | frozenset(
    str.split("what stories posts articles links things stuff items")
)
# A kind of thing right after "the X" names X ("the golang organization"), and so it does after
# a preposition or first ("events in mastodon org", "postgres image new tags").
KIND_LEADS = frozenset(("", *str.split("the in of for from by on at")))
# Verbs whose object is someone on a platform ("who started following sindresorhus")
FOLLOWING = frozenset(str.split("following follows followed"))
SLUG_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)+")
SLUG_KINDS = EN_KIND_NOUNS | {"tag"}


def _subject_word(token: str, excluded: set[str]) -> bool:
    low = token.lower()
    if low in EN_KIND_NOUNS:  # "community topics": a kind before a kind names no one
        return False
    return not CJK_RE.search(token) and low not in PEOPLE and usable(token, excluded)


def in_subject_place(text: str, excluded: set[str]) -> list[str]:
    """Names an English question puts in a subject's place, unmarked:

    - after a question's auxiliary, before its verb: "What did elonmusk post", "Has sama been
      tweeting" (the auxiliary first, or after a question word);
    - between a kind of thing and a past verb: "Repositories sindresorhus starred";
    - between "the" (or a preposition) and a kind of account, or first before it: "the golang
      organization", "events in the mastodon org", "postgres image new tags", also past a word
      of how it is put ("the official postgres image").

    Words for things (posts, trending), question words, people in general and the route's own
    words are never names."""
    if CJK_RE.search(text):
        return []
    raw = [t.casefold() for t in WORD_TOKEN_RE.findall(text)]
    tokens = [POSSESSIVE_RE.sub("", t) for t in WORD_TOKEN_RE.findall(text)]
    lows = [t.lower() for t in tokens]
    found = []
    for i, token in enumerate(tokens[:-1]):
        before = lows[i - 1] if i else ""
        after = lows[i + 1]
        # "What did X post", "Which repositories has X starred": a question word, maybe a
        # kind of thing, the auxiliary, the name.
        # "Which new models has Qwen uploaded": a question word, a few words for things
        opened = i >= 2 and any(
            lows[j] in QUESTION_WORDS and all(w in GENERIC for w in lows[j + 1 : i - 1])
            for j in range(max(0, i - 5), i - 1)
        )
        # "What issues were opened": a past participle after the auxiliary is its verb
        participle = before in PASSIVE_AUXILIARIES and lows[i].endswith("ed") and token.islower()
        asked = before in AUXILIARIES and (i == 1 or (i >= 2 and opened)) and not participle
        # "Repositories sindresorhus starred"; "requests that got closed": got is no name, nor
        # is anything before a "feed"
        past = after.endswith("ed") and not after.endswith("eed")
        relative = before in GENERIC and past and lows[i] not in LIGHT_VERBS
        third = len(after) > 3 and after.endswith("s") and not after.endswith("ss")
        # "let me know when shroud goes live", "whenever Qwen uploads a new model" (the verb
        # may be a word for things too after a handle: "when karpathy posts something", not
        # "whenever Tailscale shows up")
        subordinate = before in SUBORDINATORS and (_verb_like(after) or (third and token.islower()))
        # "what's davidehrlich been logging": what has
        contracted = i > 0 and raw[i - 1] in CONTRACTED and after in ("been", "got", "done")
        # "the postgres image", and past a word of how it is put: "the official postgres image"
        # ("recently active projects": what an adverb leads is said of them, no name)
        led = before in KIND_LEADS or (
            i >= 2 and before in GENERIC and not before.endswith("ly") and lows[i - 2] in KIND_LEADS
        )
        # "the Chrome extension I rely on": the asker's clause says which; Chrome is no name
        owned = i + 2 < len(lows) and lows[i + 2] in CLAUSE_PRONOUNS
        # "fabric-api versions", "tokio releases": a name before the artifacts it publishes
        # ("Track releases of ..." opens with a verb: a name of letters first is none)
        artifact = after in ARTIFACTS and (i > 0 or not token.isalpha() or token.islower())
        # "a new fabric-api version", "climate-crisis tag": a slug (lower case, hyphened) is a
        # name before its kind or artifact whatever leads it
        slug = SLUG_RE.fullmatch(token) is not None and (after in SLUG_KINDS or artifact)
        kind = ((led and (after in EN_KIND_NOUNS or artifact)) or slug) and not owned
        # "everything patio11 submits", "stories pg has submitted": a name as the subject of
        # the clause after what it does
        does = (_verb_like(after) and after not in ("is", "does")) or (
            after in ("has", "have") and i + 2 < len(lows) and lows[i + 2].endswith("ed")
        )
        # "the repositories that bitnami publishes": a kind of thing, then the clause's doer
        # (the verb may be a word for things too: "publishes")
        kind_then = before in ("that", "which") and i >= 2 and lows[i - 2] in GENERIC and third
        # "everything ericelliott publishes": after "everything" a verb may be a word for
        # things too
        all_of = before in EVERYTHING and third
        acting = ((before in WHOLE_WORDS and does) or all_of or kind_then) and token.islower()
        # "who started following sindresorhus": whom someone follows is named after the verb
        followed = before in FOLLOWING and token.islower()
        named = asked or relative or kind or subordinate or contracted or acting or followed
        # "the model my lab fine-tuned": the asker's own, which unnamed
        if named and before not in OWNERS and _subject_word(token, excluded):
            found.append(token)
    return found


def _verb_like(word: str) -> bool:
    """A present verb of a third person ("goes", "uploads", "posts") or "is"/"has"."""
    return word in ("is", "has", "goes", "does") or (
        len(word) > 3 and word.endswith("s") and not word.endswith("ss") and word not in GENERIC
    )
