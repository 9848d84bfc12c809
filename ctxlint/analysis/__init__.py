"""Shared passes over the model that several checks and reports need (a check reads them through
its request's ``context.RequestAnalysis``, which makes each once)."""
