"""The word lists of the one text toolkit: general English and general ML vocabulary, never
phrases of particular papers. Every module that needs a negation, a generic acronym or an
absolute word reads it here."""

from __future__ import annotations

# Acronyms that are vocabulary, not the name of one paper's method or dataset (lower case).
GENERIC_NAMES = frozenset({
    "llm", "llms", "nlp", "ai", "gpt", "gpts", "cnn", "cnns", "rnn", "rnns", "sota", "api", "apis",
    "mllm", "mllms", "vlm", "vlms", "lm", "lms", "plm", "plms", "nlg", "nlu", "qa", "rl", "kv",
    "moe", "gpu", "gpus", "cpu", "cpus", "dnn", "dnns", "gnn", "gnns", "ml", "asr", "tts", "ocr",
    "rag", "sft", "rlhf", "mt", "nmt", "ner", "pos", "iot", "3d", "2d", "1d", "4k", "8k",
    "bert", "imagenet", "vit", "rope",
})

# Words that negate what follows them ("does not require", "without labels", "fails to").
NEGATIONS = frozenset("""not no never none nothing nowhere neither nor without cannot can't don't
doesn't didn't isn't aren't wasn't weren't won't wouldn't couldn't shouldn't fail fails failed
failing unable lack lacks lacking rarely seldom hardly barely free""".split())
# Words that deny what follows them in their clause ("avoids retraining", "instead of prompting",
# "in the absence of labels", "large models struggle to produce accurate content").
DENIALS = frozenset("""eliminates eliminate eliminating avoids avoid avoiding instead rather absence
absent struggle struggles struggled struggling""".split())
# Words that all but deny what follows them ("with minimal context relevance", "a negligible effect",
# "a little human annotation"): for a yes/no question about it, a "no". Not "less" or "few", which
# more often compare ("uses less memory") than deny.
MINIMISERS = frozenset("minimal minimally negligible negligibly marginal marginally little".split())
# The negations that govern only what follows them ("without labels", "no gain", "label-free"):
# after a fact in its clause, they deny something else ("X identifies the model without training").
FORWARD_NEGATIONS = frozenset("no none nothing nowhere neither nor without lack lacks lacking free".split())
# Words that set what follows them apart from the claim ("unlike X", "instead of X", "rather than
# X", "avoids X": X is not what is claimed). Read by the eval's fact check, where each opens a
# clause of its own; the answerer's verdict reads DENIALS.
CONTRASTS = frozenset("unlike instead rather avoid avoids avoiding".split())
# Phrases that deny the whole clause after them ("it is false that X").
DENYING_PHRASES = ("it is false that", "it is untrue that", "it is not the case that")
# Words that deny a change to what their clause is about ("keeps the encoder frozen").
STATE_DENIALS = frozenset("""frozen freeze freezes freezing fixed unchanged intact untouched""".split())
# Words that move what follows them one way or the other ("reduces the model's dependency on
# depth", "limits the efficiency", "more efficient") or keep it ("while maintaining generalization"):
# a question moving a thing one way over a sentence moving it the other is answered "No".
RAISES = frozenset("""improve improves improved improving increase increases increased increasing
boost boosts boosted boosting enhance enhances enhanced enhancing raise raises raised raising
strengthen strengthens strengthened strengthening more higher greater better improvement improvements
gain gains best""".split())
LOWERS = frozenset("""reduce reduces reduced reducing decrease decreases decreased decreasing lower
lowers lowered lowering limit limits limited limiting hurt hurts hurting harm harms harmed harming
degrade degrades degraded degrading diminish diminishes diminished diminishing weaken weakens
weakened weakening worsen worsens worsened worsening impair impairs impaired impairing less fewer
worse worst poorer drop drops reduction reductions decline declines degradation sacrifice sacrifices
sacrificed sacrificing forgo forgoes forgoing compromise compromises compromised compromising lose loses
losing""".split())
KEEPS = frozenset("""maintain maintains maintained maintaining preserve preserves preserved
preserving retain retains retained retaining""".split())
# Words that end a negation's scope inside a sentence ("does not X but Y": Y is asserted).
SCOPE_ENDS = frozenset("but while whereas although though however yet and".split())

# Words that make a claim universal or absolute; a group counts as said when any member is.
ABSOLUTE_GROUPS: tuple[frozenset[str], ...] = tuple(frozenset(g.split()) for g in (
    "every each", "all", "any whatever whichever", "always invariably", "never",
    "eliminate eliminates eliminated eliminating", "solve solves solved solving",
    "completely entirely fully totally wholly", "perfect perfectly flawless flawlessly",
    "guarantee guarantees guaranteed", "prove proves proved proven", "universal universally",
    "cause causes caused causing because", "exact exactly",
    "best fastest largest highest lowest smallest strongest greatest", "sole solely exclusively",
))
