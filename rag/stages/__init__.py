"""The answer path, one module per stage, each with one typed input and output:

route (``route.py``: the question as it stands alone, its intent, a catalogue answer) ->
retrieve (``retrieve.py``: the ranked ``Evidence``, scrubbed and split into sentences once) ->
read (``read.py``: the reader's ``Reading``: which sentences answer each part, and whether any do) ->
generate (``generate.py``: a ``Generator`` writes a ``Draft``; the fallback policy lives here) ->
verify (``verify.py``: each sentence checked once against the papers it cites) ->
cite (``cite.py``: citations numbered once, the ``Answer``).

``rag.engine`` composes them; it holds no policy of its own."""
