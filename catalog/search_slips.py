"""A platform's name written with one slip of the keyboard ("tianjin musuem" for Tianjin
Museum, "hackernwes"): a letter left out, doubled, swapped with the next or mistyped. Only
long names are looked for so (ten letters or more, squashed), and only where the question
names none exactly; the first letter is kept, as typists keep it."""

from catalog.search_index import SearchIndex

SLIP_MIN = 10  # letters a squashed name has at least to be found with a slip
SLIP_FACTOR = 0.5  # a name found with a slip is weaker evidence than one written right


def slipped_keys(index: SearchIndex, squashed: str) -> list[str]:
    """The squashed names of ``index`` one slip away from ``squashed`` (not itself)."""
    if len(squashed) < SLIP_MIN - 1 or not squashed.isalpha() or not squashed.isascii():
        return []
    near = _near(index)
    deleted = _deletions(squashed)
    found = {*near.get(squashed, ()), *(d for d in deleted if d in index.word_phrases)}
    for variant in deleted:
        found.update(near.get(variant, ()))
    return sorted(
        k for k in found if k != squashed and k[0] == squashed[0] and _one_slip(k, squashed)
    )


_NEAR: dict[tuple, dict[str, list[str]]] = {}  # by index: its version and names' identity


def _near(index: SearchIndex) -> dict[str, list[str]]:
    """Each long name's one-letter deletions, to the names they come from (built once per
    index a process holds)."""
    key = (index.version, id(index.word_phrases))
    if key not in _NEAR:
        near: dict[str, list[str]] = {}
        for name in index.word_phrases:
            if len(name) >= SLIP_MIN and name.isalpha() and name.isascii():
                for variant in _deletions(name):
                    near.setdefault(variant, []).append(name)
        _NEAR.clear()  # one index is current at a time
        _NEAR[key] = near
    return _NEAR[key]


def _deletions(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


def _one_slip(a: str, b: str) -> bool:
    """``a`` and ``b`` differ by one letter left out or added, one mistyped, or two next to each
    other swapped."""
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        swapped = len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
        return len(diff) == 1 or (swapped and a[diff[1]] == b[diff[0]])
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))
