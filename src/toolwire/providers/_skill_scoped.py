"""`skill_scoped_tools`: tools visible only while one skill is active."""

from __future__ import annotations

from collections.abc import Iterable

from toolwire.errors import ConfigurationError
from toolwire.providers._base import ProviderContext
from toolwire.providers._static import StaticTools
from toolwire.tools import Tool

__all__ = ["SKILL_SCOPED_ID_PREFIX", "SkillScopedTools", "skill_scoped_tools"]

SKILL_SCOPED_ID_PREFIX = "skill-scoped:"
"""Prefix of a skill-scoped provider's id: ``skill-scoped:<skill_id>``."""


class SkillScopedTools:
    """Offers its tools only when ``ctx.active_skill_id`` equals its skill id exactly.

    Fails closed: no active skill, another skill, or a look-alike id (different case, extra
    whitespace) gives an empty list.
    """

    __slots__ = ("_skill_id", "_tools")

    def __init__(self, skill_id: str, tools: Iterable[Tool]) -> None:
        if not isinstance(skill_id, str) or not skill_id.strip():
            raise ConfigurationError(
                f"skill_scoped_tools() needs a non-empty skill id, got {skill_id!r}; pass the "
                "id of the skill whose activation should reveal these tools"
            )
        self._skill_id = skill_id
        self._tools = StaticTools(tools, id=self.id)

    @property
    def id(self) -> str:
        """``skill-scoped:<skill_id>``."""
        return SKILL_SCOPED_ID_PREFIX + self._skill_id

    @property
    def skill_id(self) -> str:
        """The skill that reveals these tools."""
        return self._skill_id

    def list(self, ctx: ProviderContext) -> list[Tool]:
        """The tools (a new list) while the skill is active, else an empty list."""
        if ctx.active_skill_id == self._skill_id:
            return self._tools.list(ctx)
        return []

    def __repr__(self) -> str:
        return f"SkillScopedTools({self._skill_id!r})"


def skill_scoped_tools(skill_id: str, tools: Iterable[Tool]) -> SkillScopedTools:
    """A provider that offers ``tools`` only while ``skill_id`` is the active skill.

    Raises:
        ConfigurationError: ``skill_id`` is empty or whitespace.
        ToolDefinitionError: An item is not a `Tool`.
        RegistrationError: Two tools share a name.
    """
    return SkillScopedTools(skill_id, tools)
