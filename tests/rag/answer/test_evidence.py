"""Whether an abstract names what a question names: a composite of one family's members is named
by the abstract that names each member ("the Bison-Gecko tandem" of "PaLM2-Bison and
PaLM2-Gecko"), and by no other."""

from __future__ import annotations

import pytest

from rag.answer.evidence import says
from rag.types import Paper, ScoredPaper

TANDEM = ScoredPaper(Paper("tandem", "", "On the PaLM2 pretraining dataset, a tandem of PaLM2-Bison and "
                           "PaLM2-Gecko offers a 1.16x speedup over a PaLM2-Otter model."), 1.0)
APART = ScoredPaper(Paper("apart", "", "We compare Sci-Sentence embeddings with a Med-BERT encoder, and "
                          "LLaMA with an Adapter."), 1.0)


@pytest.mark.parametrize(("paper", "name", "said"), [
    (TANDEM, "Bison-Gecko", True),  # both members of the PaLM2 family
    (TANDEM, "PaLM2-Otter", True),  # as written
    (TANDEM, "Bison-Falcon", False),  # Falcon is no member
    (APART, "Sentence-BERT", False),  # each part follows a hyphen, but of two families
    (APART, "LLaMA-Adapter", False),  # each part said, neither as a member
])
def test_a_composite_name_is_said_by_the_abstract_naming_each_member_of_one_family(paper, name, said):
    assert says(paper, name) is said
