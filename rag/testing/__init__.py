"""Fakes and test peers for the outside services, importable by the tests and the benchmarks
alike (as haystack and LlamaIndex ship theirs): ``fakes`` (embedder, chat model), ``fake_openai``
(an OpenAI-compatible server on loopback), ``fake_slack`` (Slack's Web API and Socket Mode),
``live`` (a real uvicorn server on a free port), ``chroma_server`` (a real `chroma run`)."""
