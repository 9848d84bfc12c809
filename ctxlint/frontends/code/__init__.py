"""What the front-ends for code (Python, TypeScript and JavaScript, notebooks) share.

``words`` holds the names and words both read the same way (a prompt's name, a tool runner's,
a cut's marker); ``pieces`` the values both build: pieces of text with their spans, the facts a
slot carries, and the builder that turns them into a request's segments. Each language's
package keeps what its syntax decides (``frontends/python/``, ``frontends/typescript/``); what
SDKs and frameworks do is the framework catalogue's (``ctxlint/frameworks/``), and what the
providers' APIs are made of is ``ctxlint/providers.py``.
"""
