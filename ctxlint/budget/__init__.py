"""`ctxlint budget`: simulate a prompt's context budget and read back the fields that must survive.

A request is split into budget segments (message framing, tools, static text by role, each
variable slot), filled with sample content from fixtures or to sizes the user gives, and handed
to a deterministic allocator: the output reserve first, pinned segments whole, then each other
segment's minimum by priority, then the rest shared by priority weight, then each segment's
operator (keep, compress, extract, summarize, truncate, drop) applied to its grant. Key fields
declared as must-survive are read back from what is left. Nothing is rendered and no model is
called: the same prompt, fixtures and budget give the same table every time.

- ``policy``: budget declarations (front matter, ``ctxlint: budget`` directives, config globs)
- ``fixtures``: sample content files
- ``segments``: a request cut into budget segments
- ``operators``: de-duplication and the text and tool operators
- ``allocator``: the allocation, the naive comparison and the readback
- ``simulate``: one prompt file from disk to plans, for the command and the rule
"""
