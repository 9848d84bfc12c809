"""Shared passes over the model that several checks and reports need."""
