"""Azure OpenAI through the `openai` SDK's Azure client: the OpenAI provider with Azure's URLs
and auth.

`model` is the deployment name (the SDK puts it in `/openai/deployments/{name}/...`, so each
stage may use its own deployment on one client); `api_version` is Azure's `api-version`
query parameter. Auth is an API key (sent as `api-key`, several rotated like any provider's) or
a Microsoft Entra ID bearer token (`Authorization: Bearer`), which then stands in the key ring
so a rejected token fails the call with one clear line and never shows in an error. Streaming,
usage, reasoning and every error are read exactly as the OpenAI provider reads them.

Usage is counted under the model the reply names (Azure's chunks say e.g.
`gpt-4o-mini-2024-07-18`), so a deployment called `writer` is priced as the OpenAI model it
serves; a reply that names none is counted under the deployment name.
"""

from __future__ import annotations

from typing import Any

import openai

from ..fetch.tls import tls_context
from ..ports import TokenUsage
from .base import ProviderChat
from .clients import ClientPool
from .keys import NO_KEY, shared_ring
from .meter import Meter
from .openai_chat import OpenAIChat
from .retry import RetryPolicy


class AzureChat(OpenAIChat):
    def __init__(
        self,
        model: str,
        api_keys: tuple[str, ...] = (),
        base_url: str | None = None,
        timeout_s: float = 60.0,
        retry: RetryPolicy | None = None,
        meter: Meter | None = None,
        clients: ClientPool | None = None,
        *,
        api_version: str,
        entra_token: str | None = None,
    ) -> None:
        if not base_url:
            raise ValueError("Azure OpenAI needs its resource endpoint")
        self._entra = bool(entra_token) and not api_keys
        credentials = (entra_token,) if self._entra and entra_token else api_keys
        ring = shared_ring(f"azure:{base_url}", credentials)
        ProviderChat.__init__(self, model, ring, retry, meter, timeout_s, where=base_url)
        self._official = True  # Azure takes max_completion_tokens, as api.openai.com does
        self._owns_client = clients is None
        self._azure = (clients or ClientPool()).get(
            ("azure", base_url, api_version, timeout_s),
            lambda: openai.AsyncAzureOpenAI(
                azure_endpoint=base_url,
                api_version=api_version,
                api_key=NO_KEY,
                timeout=timeout_s,
                max_retries=0,
                http_client=openai.DefaultAsyncHttpxClient(verify=tls_context()),
            ),
        )
        self._client = self._azure

    def _authorized(self, key: str) -> openai.AsyncOpenAI:
        if self._entra:
            return self._azure.with_options(azure_ad_token=key)
        return self._azure.with_options(api_key=key)

    def _usage(self, usage: Any, served: str | None) -> TokenUsage:
        counted = super()._usage(usage, served)
        return TokenUsage(served or self.name, counted.input_tokens, counted.output_tokens)
