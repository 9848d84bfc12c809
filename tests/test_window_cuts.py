"""Which names say a cut is sized by the model's context window (windowcuts.py)."""

import pytest

from ctxlint.frontends.python.windowcuts import names_window


@pytest.mark.parametrize("name", ["n_ctx", "num_ctx", "max_ctx", "ideal_ctx", "trim_text_to_max_ctx", "context_window",
                                  "CONTEXT_WINDOW", "max_model_len", "model_max_length"])
def test_a_name_of_the_model_window(name):
    assert names_window(name)


@pytest.mark.parametrize("name", ["ctx", "ctx_key", "max_context_length", "max_context_size", "context_above",
                                  "window_size", "max_chars"])
def test_a_context_object_or_a_text_length_is_no_window(name):
    assert not names_window(name)
