"""Providers' endpoints that cap an answer themselves when a request sends no output limit.

OpenAI's and Anthropic's chat APIs let an answer run to what the window leaves when no limit is
sent (Anthropic's requires one); some providers fill in a default of their own instead. A request
that reaches one of them with no limit is bounded by that default: CTX201's claim that the answer
"may take whatever the window leaves" is not true of it. Which host a request goes to is the
front-ends' to find (a literal base URL, a module constant, an import); this table says what the
host does. Only what the provider's documentation says is written here, each with its source and
the date it was read; a provider whose default is not documented is left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase


@dataclass(frozen=True)
class CappedEndpoint:
    """A provider whose API fills in an output limit when a request sends none: the hosts it
    answers on (globs), and the documented default (None when the documentation says only that it
    depends on the model)."""

    provider: str
    hosts: tuple[str, ...]
    default: int | None
    source: str

    def described(self) -> str:
        cap = f"{self.default:,} tokens" if self.default is not None else "a cap of each model's own"
        return f"{self.provider}'s default when none is sent: {cap}"


CAPPED_ENDPOINTS = (
    # api-docs.deepseek.com/api/create-chat-completion, `max_tokens`: "If max_tokens is not
    # specified, the default value 4096 is used" (read 2026-12, the page as mirrored at
    # docs.seedao.tech/completions).
    CappedEndpoint("DeepSeek", ("api.deepseek.com",), 4096, "api-docs.deepseek.com/api/create-chat-completion"),
    # docs.siliconflow.cn/cn/api-reference/chat-completions/chat-completions, `max_tokens`: default
    # 4096 (read 2026-12).
    CappedEndpoint("SiliconFlow", ("api.siliconflow.cn", "api.siliconflow.com"), 4096,
                   "docs.siliconflow.cn/cn/api-reference/chat-completions/chat-completions"),
    # volcengine.com/docs/82379/1298454 (Volcengine Ark chat API, POST
    # https://ark.cn-beijing.volces.com/api/v3/chat/completions), `max_tokens`: default 4096 (read 2026-12).
    CappedEndpoint("Volcengine Ark", ("ark.*.volces.com",), 4096, "volcengine.com/docs/82379/1298454"),
    # xfyun.cn/doc/spark/HTTP调用文档.html (iFlytek Spark over HTTP,
    # https://spark-api-open.xf-yun.com/v1/chat/completions), `max_tokens`: "取值为[1,8192]，默认为4096"
    # (read 2026-12, also at docs.iflyaicloud.com/doc/237).
    CappedEndpoint("iFlytek Spark", ("spark-api-open.xf-yun.com",), 4096, "xfyun.cn/doc/spark/HTTP调用文档.html"),
    # docs.bigmodel.cn/cn/guide/start/concept-param (Zhipu's open.bigmodel.cn), `max_tokens`: default
    # "依赖模型", each model's own (read 2026-12).
    CappedEndpoint("Zhipu GLM", ("open.bigmodel.cn",), None, "docs.bigmodel.cn/cn/guide/start/concept-param"),
)

_ABSOLUTE = re.compile(r"^\s*https?://([^/\s:?#]+)", re.IGNORECASE)


def url_host(text: str) -> str | None:
    """The host an absolute URL names (``https://api.deepseek.com/v1`` -> ``api.deepseek.com``)."""
    found = _ABSOLUTE.match(text)
    return found.group(1).lower() if found is not None else None


def capped_endpoint(urls: Iterable[str]) -> CappedEndpoint | None:
    """The capping provider every absolute URL a request may go to names, when each is one of
    the table's (the first); None when none is absolute or one goes elsewhere."""
    found: CappedEndpoint | None = None
    for url in urls:
        host = url_host(url)
        if host is None:
            continue
        endpoint = next((e for e in CAPPED_ENDPOINTS if any(fnmatchcase(host, glob) for glob in e.hosts)), None)
        if endpoint is None:
            return None
        found = found or endpoint
    return found
