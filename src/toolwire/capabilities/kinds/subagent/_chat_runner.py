"""`ChatCompletionsRunner`: the sub-agent loop toolwire ships, over any OpenAI-compatible
Chat Completions endpoint (OpenAI, vLLM, Ollama, LiteLLM, llama.cpp's server, ...).

Each turn sends the conversation and the child registry's tools (`toolwire.formats.openai_chat`
shapes: ``tools`` out, ``message.tool_calls`` in, ``role: tool`` results back, written by the
presenter) and records the response's ``usage``. A response without tool calls is the final
answer. Tool calls run through ``job.registry.execute_parallel``: a call naming an unknown tool,
or with arguments that are not valid JSON, is answered to the model as the pipeline's error
result, and the loop goes on. Requests are not streamed.

The API key is read through the secrets seam (``api_key_ref``, e.g.
``providers/openai/apiKey``) when a run starts; it is never part of the runner's settings,
its ``repr`` or any message.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

from toolwire.calls import ToolCall
from toolwire.capabilities.kinds.subagent._chat_client import (
    ChatEndpointError,
    RetryPolicy,
    request_completion,
)
from toolwire.capabilities.kinds.subagent._runner import SubagentJob, SubagentStopped
from toolwire.capabilities.kinds.subagent.seam import SubagentUsage
from toolwire.errors import ConfigurationError, FormatError, SecretNotDeclaredError
from toolwire.formats import openai_chat

__all__ = ["ChatCompletionsRunner", "chat_usage"]


def chat_usage(data: Mapping[str, Any]) -> SubagentUsage | None:
    """The ``usage`` of a completion, or ``None`` when it has none (or a malformed one)."""
    usage = data.get("usage")
    if not isinstance(usage, Mapping):
        return None
    prompt = _count(usage.get("prompt_tokens"))
    completion = _count(usage.get("completion_tokens"))
    if prompt is None or completion is None:
        return None
    total = _count(usage.get("total_tokens"))
    if total is None:
        total = prompt + completion
    return SubagentUsage(prompt_tokens=prompt, completion_tokens=completion, total_tokens=total)


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        parts = [p.get("text") for p in content if isinstance(p, Mapping)]
        return "".join(p for p in parts if isinstance(p, str))
    return ""


def _assistant_message(text: str, calls: Sequence[ToolCall]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": text or None,
        "tool_calls": [
            {
                "id": call.id,
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": call.args if isinstance(call.args, str) else json.dumps(call.args),
                },
            }
            for call in calls
        ],
    }


@dataclass(frozen=True, kw_only=True, slots=True)
class ChatCompletionsRunner:
    """A sub-agent loop over an OpenAI-compatible ``/chat/completions`` endpoint.

    Attributes:
        base_url: The API root, e.g. ``https://api.openai.com/v1`` or
            ``http://127.0.0.1:11434/v1`` (Ollama); ``/chat/completions`` is appended.
        model: The model name sent in every request.
        api_key_ref: The secret ref of the API key (sent as a bearer token); ``None`` sends
            no key (local servers).
        temperature: Sent when set.
        max_tokens: ``max_tokens`` per response, sent when set.
        request_timeout_s: Per HTTP request.
        retry: When to retry (429 with ``Retry-After``, 5xx, no connection).
        strict: OpenAI strict function schemas: ``False`` (the default, which every
            compatible server accepts), ``None`` where the schema allows, ``True`` always.
        extra_body: More fields for every request body (``{"top_p": 0.9}``).
    """

    base_url: str
    model: str
    api_key_ref: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    request_timeout_s: float = 120.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    strict: bool | None = False
    extra_body: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        parts = urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ConfigurationError(
                f"ChatCompletionsRunner(base_url={self.base_url!r}) must be an http(s) URL such "
                "as https://api.openai.com/v1"
            )
        if not isinstance(self.model, str) or not self.model.strip():
            raise ConfigurationError("ChatCompletionsRunner(model=...) must name a model")
        if self.api_key_ref is not None:
            from toolwire.capabilities.kinds.secrets.seam import validate_ref

            try:
                validate_ref(self.api_key_ref)
            except ValueError as exc:
                raise ConfigurationError(f"ChatCompletionsRunner(api_key_ref=...): {exc}") from None
        if not self.request_timeout_s > 0:
            raise ConfigurationError("ChatCompletionsRunner(request_timeout_s=...) must be > 0")

    @property
    def secret_refs(self) -> tuple[str, ...]:
        """The API key's ref, when there is one."""
        return () if self.api_key_ref is None else (self.api_key_ref,)

    @property
    def url(self) -> str:
        """Where requests go."""
        return self.base_url.rstrip("/") + "/chat/completions"

    async def run(self, job: SubagentJob) -> str:
        """Talk to the endpoint until the model answers without tool calls (see the module)."""
        import httpx

        key = await self._api_key(job)
        messages: list[dict[str, Any]] = []
        if job.system_prompt:
            messages.append({"role": "system", "content": job.system_prompt})
        messages.append({"role": "user", "content": job.prompt})
        async with httpx.AsyncClient(timeout=self.request_timeout_s) as client:
            for turn in range(1, job.max_turns + 1):
                answer = await self._turn(client, job, messages, turn, key)
                if answer is not None:
                    return answer
        raise SubagentStopped(
            "max_turns", f"used its {job.max_turns} turns and still asked for tools"
        )

    async def _turn(
        self,
        client: Any,
        job: SubagentJob,
        messages: list[dict[str, Any]],
        turn: int,
        key: str | None,
    ) -> str | None:
        """One model request (and its tool calls); the answer when it gave one."""
        definitions = job.registry.definitions()
        body = self._body(messages, definitions)
        try:
            data = await request_completion(client, self.url, body, key=key, retry=self.retry)
        except ChatEndpointError as exc:
            raise SubagentStopped("failed", exc.message) from None
        try:
            calls = openai_chat.parse_tool_calls(data)
            message = data["choices"][0]["message"]
        except (FormatError, LookupError, TypeError) as exc:
            raise SubagentStopped(
                "failed", f"the endpoint's response is not a chat completion: {exc}"
            ) from None
        text = _text(message.get("content"))
        model = data.get("model") if isinstance(data.get("model"), str) else None
        job.tally.model_turn(
            usage=chat_usage(data),
            model=model or self.model,
            text=text,
            tool_names=[call.name for call in calls],
            priced_as=(self.model,),
        )
        if not calls:
            return text
        if turn == job.max_turns:
            return None  # no turn left to read the results: the caller reports max_turns
        messages.append(_assistant_message(text, calls))
        ctx = replace(job.context, current_turn=turn, message_count=len(messages))
        outcomes = await job.registry.execute_parallel(calls, ctx)
        job.tally.tool_results(outcomes)
        messages.extend(openai_chat.tool_result_messages(outcomes, tools=job.registry))
        return None

    def _body(self, messages: list[dict[str, Any]], definitions: Sequence[Any]) -> dict[str, Any]:
        body: dict[str, Any] = {**self.extra_body, "model": self.model, "messages": messages}
        if definitions:
            body["tools"] = openai_chat.tool_definitions(definitions, strict=self.strict)
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        return body

    async def _api_key(self, job: SubagentJob) -> str | None:
        ref = self.api_key_ref
        if ref is None:
            return None
        if job.secrets is None:
            raise SubagentStopped(
                "failed",
                f"the API key ({ref}) cannot be read: the capability backends have no "
                "secrets_resolver",
            )
        try:
            return await job.secrets.get(ref)
        except (KeyError, SecretNotDeclaredError):
            raise SubagentStopped("failed", f"the API key secret {ref} is not configured") from None
