"""Chat-template special tokens: the table of today's families, and stripping them from text.

A tool's output that contains ``<|im_start|>system`` or ``<｜Assistant｜>`` may read, to the
model, as a new turn. `strip_template_tokens` replaces every token of `TEMPLATE_TOKENS` (and a
blank line followed by ``Human:`` or ``Assistant:``) with ``[STRIPPED-TEMPLATE-TOKEN]``.

Matching ignores case, and treats ASCII ``|`` and the full-width ``｜`` as one character, and
``_`` and ``▁`` (U+2581) likewise, so ``<|begin▁of▁sentence|>`` and ``<｜im_start｜>`` are caught
as well as the canonical spellings. Stripping is idempotent, and text without a token comes back
byte-identical. To cover a new family, add its rows to the table.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolwire.safety.linear_regex import LinearMatch, escape, linear

__all__ = [
    "STRIPPED_TEMPLATE_TOKEN",
    "TEMPLATE_TOKENS",
    "TEMPLATE_TOKEN_PATTERN",
    "TEMPLATE_TOKEN_REGEX",
    "StrippedText",
    "TemplateToken",
    "strip_template_tokens",
]

STRIPPED_TEMPLATE_TOKEN = "[STRIPPED-TEMPLATE-TOKEN]"
"""What each chat-template token is replaced by."""


@dataclass(frozen=True, kw_only=True, slots=True)
class TemplateToken:
    """One special token of a chat template.

    Attributes:
        token: The token as the family's tokenizer spells it.
        family: The model families whose templates use it.
        numbered: The token's digits stand for any number (a reserved range).
        then: A pattern for what is stripped with the token (ChatML's role name).
    """

    token: str
    family: str
    numbered: bool = False
    then: str = ""


def _family(family: str, *tokens: str) -> tuple[TemplateToken, ...]:
    return tuple(TemplateToken(token=token, family=family) for token in tokens)


_CHATML = "ChatML (Qwen, Yi, SmolLM, InternLM, Hermes, Phi-4)"
_GPT = "GPT (tiktoken), Qwen, Phi-3, Zephyr, GLM, OLMo"
_ROLES = "Phi-3, Zephyr, GLM, OLMo, Falcon 3"
_HARMONY = "gpt-oss (harmony)"
_LLAMA3 = "Llama 3 (3.1, 3.2, 3.3, Nemotron)"
_MISTRAL = "Mistral (v3, v7, tekken; Magistral)"
_DEEPSEEK = "DeepSeek (V3, R1)"
_COHERE = "Command R, Command A (Cohere)"
_KIMI = "Kimi K2"
_SEED = "Seed-OSS"

TEMPLATE_TOKENS: tuple[TemplateToken, ...] = (
    TemplateToken(token="<|im_start|>", family=_CHATML, then="(?:system|user|assistant|tool)?"),
    *_family(_CHATML, "<|im_end|>", "<|im_sep|>"),
    *_family("Qwen 2.5, Qwen 3, Hermes (tool calls)", "<tool_call>", "</tool_call>"),
    *_family("Qwen 2.5, Qwen 3, Hermes (tool calls)", "<tool_response>", "</tool_response>"),
    *_family("Qwen 3, DeepSeek-R1 (reasoning)", "<think>", "</think>"),
    *_family(_GPT, "<|endoftext|>"),
    *_family("GPT (tiktoken)", "<|endofprompt|>"),
    *_family(_ROLES, "<|system|>", "<|user|>", "<|assistant|>"),
    *_family("Phi-3, Phi-4-mini, gpt-oss (harmony)", "<|end|>"),
    *_family("Phi-4-mini, Granite", "<|tool_call|>"),
    *_family("Phi-4-mini", "<|/tool_call|>", "<|tool|>", "<|/tool|>", "<|tool_response|>"),
    *_family(_HARMONY, "<|start|>", "<|channel|>", "<|message|>", "<|constrain|>"),
    *_family(_HARMONY, "<|call|>", "<|return|>"),
    *_family("gpt-oss (harmony), Hunyuan", "<|startoftext|>"),
    *_family("Llama 3, Llama 4", "<|begin_of_text|>"),
    *_family("Llama 3, Llama 4, Granite", "<|end_of_text|>"),
    *_family(_LLAMA3, "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>", "<|eom_id|>"),
    *_family(_LLAMA3, "<|python_tag|>"),
    TemplateToken(token="<|reserved_special_token_0|>", family=_LLAMA3, numbered=True),
    *_family("Llama 4", "<|header_start|>", "<|header_end|>", "<|eot|>", "<|eom|>"),
    *_family("Llama 4", "<|python_start|>", "<|python_end|>"),
    *_family("Llama 2, Mistral", "[INST]", "[/INST]"),
    *_family("Llama 2", "<<SYS>>", "<</SYS>>"),
    *_family("Llama 2, Mistral, Zephyr (sequence bounds)", "<s>", "</s>"),
    *_family(_MISTRAL, "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CALLS]"),
    *_family(_MISTRAL, "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]", "[TOOL_CONTENT]"),
    *_family(_MISTRAL, "[TOOL_RESULTS]", "[/TOOL_RESULTS]", "[THINK]", "[/THINK]"),
    *_family("Gemma", "<start_of_turn>", "<end_of_turn>", "<bos>", "<eos>"),
    *_family(_DEEPSEEK, "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"),
    *_family(_DEEPSEEK, "<｜User｜>", "<｜Assistant｜>"),
    *_family(_DEEPSEEK, "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>", "<｜tool▁sep｜>"),
    *_family(_DEEPSEEK, "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>"),
    *_family(_DEEPSEEK, "<｜tool▁outputs▁begin｜>", "<｜tool▁outputs▁end｜>"),
    *_family(_DEEPSEEK, "<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>"),
    *_family("DeepSeek Coder", "<|EOT|>"),
    *_family(_COHERE, "<|START_OF_TURN_TOKEN|>", "<|END_OF_TURN_TOKEN|>", "<|SYSTEM_TOKEN|>"),
    *_family(_COHERE, "<|USER_TOKEN|>", "<|CHATBOT_TOKEN|>", "<BOS_TOKEN>", "<EOS_TOKEN>"),
    *_family(_COHERE, "<|START_RESPONSE|>", "<|END_RESPONSE|>"),
    *_family(_COHERE, "<|START_ACTION|>", "<|END_ACTION|>"),
    *_family(_COHERE, "<|START_TOOL_RESULT|>", "<|END_TOOL_RESULT|>"),
    *_family(_COHERE, "<|START_THINKING|>", "<|END_THINKING|>"),
    *_family("Granite (IBM)", "<|start_of_role|>", "<|end_of_role|>"),
    *_family(_KIMI, "<|im_system|>", "<|im_user|>", "<|im_assistant|>", "<|im_middle|>"),
    *_family(_KIMI, "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"),
    *_family(_KIMI, "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>"),
    *_family("EXAONE (LG)", "[|system|]", "[|user|]", "[|assistant|]", "[|tool|]"),
    *_family("EXAONE (LG)", "[|endofturn|]"),
    *_family("GLM, ChatGLM", "[gMASK]", "<sop>", "<|observation|>"),
    *_family(_SEED, "<seed:bos>", "<seed:eos>", "<seed:think>", "</seed:think>"),
    *_family(_SEED, "<seed:tool_call>", "</seed:tool_call>"),
    *_family("Hunyuan", "<｜hy_User｜>", "<｜hy_Assistant｜>", "<|eos|>"),
    TemplateToken(token="<|extra_0|>", family="Hunyuan", numbered=True),
    *_family("OpenChat", "<|end_of_turn|>"),
    *_family("Megrez", "<|role_start|>", "<|role_end|>", "<|turn_end|>"),
    *_family("GigaChat", "<|role_sep|>", "<|message_sep|>"),
    *_family("dots.llm1", "<|userprompt|>", "<|endofuserprompt|>", "<|endofsystem|>"),
    *_family("dots.llm1", "<|response|>", "<|endofresponse|>"),
    *_family("SmolVLM", "<end_of_utterance>"),
    TemplateToken(token="<extra_id_0>", family="Nemotron-4", numbered=True),
)
"""The special tokens that open, close or mark turns, roles, tools and reasoning, by family.

Image, audio and fill-in-the-middle tokens are left out: they carry no role, and look-alikes
such as ``[IMG]`` (BBCode) are common in honest text."""

_SAME = {"|": "[|｜]", "｜": "[|｜]", "_": "[_▁]", "▁": "[_▁]"}


def _token_regex(row: TemplateToken) -> str:
    parts: list[str] = []
    for char in row.token:
        if row.numbered and char.isdigit():
            if not parts or parts[-1] != r"\d+":
                parts.append(r"\d+")
        else:
            parts.append(_SAME.get(char) or escape(char))
    return "".join(parts) + row.then


TEMPLATE_TOKEN_REGEX = "|".join(
    _token_regex(row) for row in sorted(TEMPLATE_TOKENS, key=lambda row: -len(row.token))
)
"""One alternation of every token of the table (longest first); match it ignoring case."""

TEMPLATE_TOKEN_PATTERN = linear(
    r"(?P<breaks>\r?\n\r?\n)(?:Human|Assistant):" + f"|(?i:{TEMPLATE_TOKEN_REGEX})"
)
"""Every token, and a blank line then ``Human:``/``Assistant:`` (case-sensitive; the line
breaks are kept), in one pass."""


@dataclass(frozen=True, kw_only=True, slots=True)
class StrippedText:
    """The outcome of `strip_template_tokens`.

    Attributes:
        text: The text with every token replaced by `STRIPPED_TEMPLATE_TOKEN`.
        count: How many tokens were replaced.
    """

    text: str
    count: int


def _replace_token(match: LinearMatch) -> str:
    return (match.group(1) or "") + STRIPPED_TEMPLATE_TOKEN


def strip_template_tokens(text: str) -> StrippedText:
    """Replace every chat-template token by ``[STRIPPED-TEMPLATE-TOKEN]`` and count them.

    Idempotent: the placeholder matches no token, so stripping twice changes nothing more.
    """
    stripped, count = TEMPLATE_TOKEN_PATTERN.subn(_replace_token, text)
    return StrippedText(text=stripped, count=count)
