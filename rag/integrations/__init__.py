"""Adapters that let other frameworks use this engine (LlamaIndex)."""
