"""Training data for the learned reader (the cross-encoder), made from the collection itself:
questions for sentences (templates and the local model), near misses, yes/no pairs and list
labels. Nothing here reads the test split except to refuse what overlaps it (``guard``)."""
