"""Words of opposite meaning, read from WordNet's antonym pointers (rag/assets/antonyms.tsv) with
the forms a sentence uses: comparatives, superlatives and adverbs."""

from __future__ import annotations

import pytest

from rag.text.antonyms import contrasted, forms, opposites


@pytest.mark.parametrize(("word", "base"), [
    ("smaller", "small"), ("larger", "large"), ("bigger", "big"), ("happiest", "happy"),
    ("worse", "bad"), ("internally", "internal"), ("automatically", "automatic"), ("datasets", "dataset"),
])
def test_a_word_is_looked_up_by_the_forms_it_takes(word, base):
    assert base in forms(word)


def test_opposites_come_from_the_table_in_every_form():
    assert "small" in opposites("large") and "large" in opposites("smallest")
    assert "internally" in opposites("externally")
    assert "decrease" in opposites("increases")
    assert opposites("transformer") == set()


def test_only_an_asked_word_the_text_leaves_out_is_contrasted():
    assert contrasted(["large", "datasets"], "trained on small datasets".split()) == [("large", "small")]
    assert contrasted(["large", "datasets"], "trained on small and large datasets".split()) == []
    assert contrasted(["fast", "decoding"], "decoding is slower than beam search".split()) == [("fast", "slower")]
