"""ctxlint: static analysis for the context LLM applications send."""

__version__ = "0.1.0"
