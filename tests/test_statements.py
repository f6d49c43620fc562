"""A question's pieces counted in its candidates' statements all at once, as each would count."""
from hypothesis import given, strategies as st

from indexer.search.record_lines import Joined

texts = st.lists(st.text(alphabet="ab .", max_size=30).map(str.encode), max_size=8)
pieces = st.text(alphabet="ab .", max_size=3).map(str.encode)


@given(texts, pieces)
def test_a_piece_is_counted_in_each_text_as_bytes_count_counts_it(texts, piece):
    """Not overlapping, none across two texts (aa in "a", "a" is none), empty texts counted 0."""
    assert Joined(texts, b"\0").counts(piece).tolist() == [text.count(piece) for text in texts]


def test_a_piece_is_not_counted_across_the_texts_joined():
    assert Joined([b"a", b"a", b"xaay"], b"\0").counts(b"aa").tolist() == [0, 0, 1]
